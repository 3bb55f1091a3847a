import type { Logger } from 'pino';
import type { CompiledMapping } from '../mappings/compiled-mapping.js';
import type { HookRequest } from '../mappings/hook-request.js';
import type { MappingsEngine } from '../mappings/mappings-engine.js';
import type { IdempotencyRepo } from '../store/port.js';
import { dispatchAll, type DispatchAction, type DispatchResult } from './dispatch-action.js';
import { HookIdempotency, requestHash, type StoredResponse } from './hook-idempotency.js';

/** One authenticated webhook call, parsed: what the intake needs of it. */
export interface HookCall {
  request: HookRequest;
  /** the raw body: "the same request" for an Idempotency-Key is the same path and bytes */
  body: Uint8Array;
  /** the caller's `Idempotency-Key`, already checked for shape */
  idempotencyKey?: string;
  /** the mappings whose signature admitted the call (no hook token was presented) */
  signedBy?: readonly CompiledMapping[];
  /** told the matched mapping's id as soon as it is known, also when a later step fails (logs, metrics) */
  onMatch?: (mappingId: string) => void;
}

/**
 * What became of a call the intake accepted; refusals are thrown as HeraldErrors. `idempotencyKey`:
 * the key the call was processed under (the header's or the mapping's); `eventId`: the system
 * event a wake added (the request's receipt records both).
 */
export type HookOutcome = (
  /** a wake (200) or a queued agent run (202) */
  | { type: 'dispatched'; status: DispatchResult['status']; body: DispatchResult['body']; replayed: boolean }
  /** the mapping's transform skipped the call (204) */
  | { type: 'skipped'; status: 204; body: null; replayed: boolean }
) & { idempotencyKey?: string; eventId?: number };

export interface HookIntakeDeps {
  engine: MappingsEngine;
  dispatch: DispatchAction;
  idempotency: IdempotencyRepo;
  logger: Logger;
  /** how long a finished key is remembered */
  ttlMs: number;
  /** past the longest a call can take, a holder of a key is presumed dead */
  lockMs: number;
}

/**
 * The webhook intake, one pipeline for /wake, /agent and every mapped hook: claim the
 * idempotency key (the header's before any mapping work; a mapping's `idempotencyKey` once it
 * rendered, before the transform and the dispatch, the only steps with effects), apply the
 * mapping, dispatch the action, then remember the answer (or release the key on failure).
 */
export class HookIntake {
  private readonly keys: HookIdempotency;

  constructor(private readonly deps: HookIntakeDeps) {
    this.keys = new HookIdempotency(deps.idempotency, { ttlMs: deps.ttlMs, lockMs: deps.lockMs });
  }

  async accept(call: HookCall): Promise<HookOutcome> {
    const prepare = async () => {
      const prepared = await this.deps.engine.prepare(call.request, { signedBy: call.signedBy });
      call.onMatch?.(prepared.mappingId);
      return prepared;
    };
    const finish = async (prepared: Awaited<ReturnType<typeof prepare>>, runId?: string, key?: string): Promise<StoredResponse & { completed?: true }> => {
      const outcome = await prepared.run();
      if (outcome.type === 'skip') return { status: 204, body: null };
      if (outcome.type === 'actions') return dispatchAll(this.deps.dispatch, outcome.actions, { runId, ...(key !== undefined && { completes: { scope: call.request.path, key } }) });
      return this.deps.dispatch(outcome.action, { runId, ...(key !== undefined && { completes: { scope: call.request.path, key } }) });
    };

    const headerKey = call.idempotencyKey;
    if (headerKey !== undefined) return this.once(call, headerKey, async (runId) => finish(await prepare(), runId, headerKey));
    const prepared = await prepare();
    const mappingKey = prepared.idempotencyKey;
    if (mappingKey === undefined) return toOutcome(await finish(prepared), false);
    return this.once(call, mappingKey, (runId) => finish(prepared, runId, mappingKey), { anyBody: true });
  }

  /** processes the call once per key of its path; a repeat gets the stored answer */
  private async once(call: HookCall, key: string, work: (runId: string) => Promise<StoredResponse & { completed?: true }>, options: { anyBody?: boolean } = {}): Promise<HookOutcome> {
    const { path } = call.request;
    const started = await this.keys.start(path, key, requestHash(path, call.body), undefined, options);
    if (started.type === 'replay') return toOutcome(started.response, true, key);
    let response: StoredResponse & { completed?: true; eventId?: number };
    try {
      response = await work(started.runId);
    } catch (error) {
      // only a success is remembered: a refused or failed call may be retried with its key
      await this.keys.release(path, key).catch((err) => this.deps.logger.error({ err }, 'idempotency key release failed'));
      throw error;
    }
    // a wake completed its key in the commit of its event; anything else completes it now
    if (!response.completed) await this.keys.complete(path, key, response);
    return toOutcome({ status: response.status, body: response.body, ...(response.eventId !== undefined && { eventId: response.eventId }) } as StoredResponse, false, key);
  }
}

function toOutcome(response: StoredResponse, replayed: boolean, idempotencyKey?: string): HookOutcome {
  const extra = { ...(idempotencyKey !== undefined && { idempotencyKey }), ...((response as { eventId?: number }).eventId !== undefined && { eventId: (response as { eventId?: number }).eventId }) };
  if (response.status === 204) return { type: 'skipped', status: 204, body: null, replayed, ...extra };
  return { type: 'dispatched', status: response.status as DispatchResult['status'], body: response.body as DispatchResult['body'], replayed, ...extra };
}
