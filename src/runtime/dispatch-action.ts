import type { HookAction } from '../mappings/hook-action.js';
import type { Heartbeat } from './heartbeat.js';
import type { MainSession } from './main-session.js';
import type { RunQueue } from './run-queue.js';

export type DispatchResult =
  | { status: 200; body: { ok: true; mode: string } }
  | { status: 202; body: { ok: true; runId: string } };

/** `options.runId`: the id an agent run gets, when the caller chose it beforehand */
export type DispatchAction = (action: HookAction, options?: { runId?: string }) => Promise<DispatchResult>;

/** Carries out an action; everything it accepts is in the store before it returns. */
export function createDispatcher(deps: { mainSession: MainSession; heartbeat: Pick<Heartbeat, 'request'>; runs: RunQueue }): DispatchAction {
  return async function dispatchAction(action, options = {}) {
    if (action.kind === 'wake') {
      await deps.mainSession.enqueueSystemEvent(action.text);
      if (action.mode === 'now') deps.heartbeat.request();
      return { status: 200, body: { ok: true, mode: action.mode } };
    }
    const runId = await deps.runs.submit(action, { id: options.runId });
    return { status: 202, body: { ok: true, runId } };
  };
}
