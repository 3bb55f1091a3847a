import { traced, tracingOn } from '../tracing/tracing.js';
import type { IntakeCall, HookOutcome } from './hook-call.js';

/**
 * The intake of one webhook call as a span: its mapping, whether its idempotency key replayed a
 * stored answer, what was dispatched (a wake coalesced or queued, a run admitted, coalesced or
 * deferred; dispatch-action.ts adds the admission). Names and ids only, never a payload value.
 */
export function intakeSpan(call: IntakeCall, accept: (call: IntakeCall) => Promise<HookOutcome>): Promise<HookOutcome> {
  if (!tracingOn()) return accept(call);
  return traced('herald.hook.intake', { attributes: { 'herald.hook.path': call.request.path, 'herald.idempotency.header': call.idempotencyKey !== undefined } }, async (span) => {
    const onMatch = call.onMatch;
    const outcome = await accept({
      ...call,
      onMatch: (mappingId) => {
        span.set({ 'herald.mapping.id': mappingId });
        onMatch?.(mappingId);
      },
    });
    const body = outcome.type === 'dispatched' ? outcome.body : undefined;
    const wakeEvent = body && 'eventOutcome' in body ? body.eventOutcome : undefined;
    span.set({
      'herald.hook.outcome': outcome.type,
      'herald.idempotency.replayed': outcome.replayed,
      'herald.idempotency.keyed': outcome.idempotencyKey !== undefined,
      'herald.run.id': body && 'runId' in body ? body.runId : outcome.type === 'responded' ? outcome.runId : undefined,
      'herald.wake.event': wakeEvent,
      // one flag for both kinds of joining: a run's event coalesced into a pending run, a wake's into the pending event it repeated
      'herald.coalesced': body?.coalesced === true || wakeEvent === 'coalesced',
    });
    return outcome;
  });
}
