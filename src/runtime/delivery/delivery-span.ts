import type { DeliveryRecord } from '../../store/port.js';
import { currentTraceparent, traced, tracingOn } from '../../tracing/tracing.js';

/** the trace a delivery is queued in (its run's), stored with it; nothing while tracing is off */
export function deliveryTraceContext(): { traceContext?: string } {
  const traceContext = currentTraceparent();
  return traceContext === undefined ? {} : { traceContext };
}

/**
 * One attempt of a delivery as a span of the trace it was queued in, whichever replica sends it and
 * however many attempts later; its outcome (delivered, the retry it schedules, failed) is set by
 * the attempt (`annotate`), and the channel's request carries its traceparent.
 */
export function attemptSpan(d: DeliveryRecord, attempt: () => Promise<void>): Promise<void> {
  if (!tracingOn()) return attempt();
  const attributes = {
    'herald.delivery.id': d.id,
    'herald.delivery.kind': d.kind,
    'herald.delivery.channel': d.channel ?? undefined,
    'herald.delivery.attempt': d.attempts,
    'herald.run.id': d.runId ?? undefined,
  };
  return traced('herald.delivery.attempt', { kind: 'producer', parent: d.traceContext ?? null, attributes }, attempt);
}
