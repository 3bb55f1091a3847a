import type { HookAction } from '../mappings/hook-action.js';
import type { Heartbeat } from './heartbeat.js';
import type { MainSession } from './main-session.js';
import type { RunQueue } from './run-queue.js';

export type DispatchResult = (
  | { status: 200; body: { ok: true; mode: string } }
  | { status: 202; body: { ok: true; runId: string } }
) & {
  /** the idempotency key of `options.completes` is already completed with this answer */
  completed?: true;
  /** the system event a wake added (when it did not repeat the one before), for the request's receipt */
  eventId?: number;
};

/**
 * `options.runId`: the id an agent run gets, when the caller chose it beforehand.
 * `options.completes`: the idempotency key being processed; a wake completes it in the commit of its event.
 */
export type DispatchAction = (action: HookAction, options?: { runId?: string; completes?: { scope: string; key: string } }) => Promise<DispatchResult>;

/** Carries out an action; everything it accepts is in the store before it returns. */
export function createDispatcher(deps: { mainSession: MainSession; heartbeat: Pick<Heartbeat, 'request'>; runs: RunQueue }): DispatchAction {
  return async function dispatchAction(action, options = {}) {
    if (action.kind === 'wake') {
      const response = { status: 200 as const, body: { ok: true as const, mode: action.mode } };
      if (options.completes) {
        await deps.mainSession.enqueueSystemEventCompleting(action.text, options.completes, response);
        if (action.mode === 'now') deps.heartbeat.request();
        return { ...response, completed: true };
      }
      const event = await deps.mainSession.enqueueSystemEvent(action.text);
      if (action.mode === 'now') deps.heartbeat.request();
      return event ? { ...response, eventId: event.id } : response;
    }
    const runId = await deps.runs.submit(action, { id: options.runId });
    return { status: 202, body: { ok: true, runId } };
  };
}
