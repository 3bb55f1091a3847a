import { HeraldError } from '../../errors.js';
import type { HookRequest } from '../../mappings/hook-request.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import type { ReceiptRecord, Store } from '../../store/port.js';
import { dispatchAll, type DispatchAction } from '../dispatch-action.js';
import type { ReceiptRecorder } from '../receipts/receipt-recorder.js';
import { parseExactJson } from '../../utils/exact-json.js';
import { mappingFailureOf } from '../../mappings/mapping-failure.js';
import { forEachFailure } from '../../mappings/for-each-failure.js';

export interface ReplayDeps {
  store: Store;
  engine: MappingsEngine;
  dispatch: DispatchAction;
  recorder: ReceiptRecorder;
  /** the public URL prefix of the webhook surface, for `ctx.url` of transforms */
  hooksUrl: string;
}

/**
 * Replays a retained request through the current mappings, as if it had just arrived: a new
 * receipt (marked as a replay of the old one, `authMethod: operator`) and, when it maps to an
 * action, a new run or event. Its signature is not checked again: it was when the request was
 * accepted (a stranger's body is never retained), and its signature headers are not kept: a
 * request its mapping's signature admitted is replayed as signed by that mapping (its `grant`s
 * hold, as they did on arrival). No
 * Idempotency-Key is claimed: replaying is the operator's deliberate repeat. A mapping that fails
 * again is recorded as on arrival (stage, mapping, cause), its payload retained as the receipt's.
 */
export async function replayReceipt(deps: ReplayDeps, receiptId: string, now = Date.now()): Promise<ReceiptRecord> {
  const original = await deps.store.receipts.get(receiptId);
  if (!original) throw new HeraldError('HERALD_NOT_FOUND', 'receipt not found');
  const retained = await deps.store.receipts.payload(receiptId, now);
  if (!retained) throw new HeraldError('HERALD_PAYLOAD_NOT_RETAINED');
  const text = Buffer.from(retained.body).toString('utf8');
  const request: HookRequest = {
    path: retained.path,
    payload: text.trim() ? parseExactJson(text) : {},
    headers: retained.headers,
    query: retained.query,
    url: `${deps.hooksUrl}/${retained.path}`,
  };
  const started = performance.now();
  const base = {
    requestId: `replay-${original.requestId}`.slice(0, 128),
    receivedAt: now,
    method: 'POST',
    path: retained.path,
    authMethod: 'operator' as const,
    bodyBytes: retained.body.byteLength,
    replayOf: original.id,
  };
  let mappingId: string | undefined;
  try {
    // verified by a mapping's signature on arrival: that mapping's grants hold for the replay as they did then
    // (none found, as for a mapping reached through the path's signed route: prepared as before, by the engine's own routing)
    const verifiedBy = original.authMethod === 'signature' ? deps.engine.signedMappings(retained.path).filter((m) => m.id === original.signature) : [];
    const signedBy = verifiedBy.length ? verifiedBy : undefined;
    const prepared = await deps.engine.prepare(request, { signedBy });
    mappingId = prepared.mappingId;
    const outcome = await prepared.run();
    if (outcome.type === 'skip') {
      return await deps.recorder.record({ ...base, mappingId, status: 204, outcome: 'skip', latencyMs: performance.now() - started });
    }
    if (outcome.type === 'respond') {
      return await deps.recorder.record({ ...base, mappingId, status: outcome.response.status, outcome: 'respond', latencyMs: performance.now() - started });
    }
    const actions = outcome.type === 'actions' ? outcome.actions : [outcome.action];
    const result = await dispatchAll(deps.dispatch, actions, {}, outcome.type === 'actions' ? outcome : {});
    // a forEach mapping that failed again for some items: recorded as on arrival, its payload kept
    const failure = 'refused' in result ? forEachFailure(mappingId, result.total, result.refused, request) : undefined;
    return await deps.recorder.record({
      ...base,
      mappingId,
      status: result.status,
      ...('refused' in result && { errorCode: result.refused[0]!.error.code }),
      ...(failure && { failure, body: retained.body, headers: retained.headers, query: retained.query }),
      ...(actions[0] && { outcome: actions[0].kind }),
      runId: 'runId' in result.body ? result.body.runId : 'runIds' in result.body ? result.body.runIds[0] : undefined,
      eventId: 'eventId' in result ? result.eventId : undefined,
      latencyMs: performance.now() - started,
    });
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    const failure = mappingFailureOf(error);
    return deps.recorder.record({
      ...base,
      mappingId: mappingId ?? failure?.mappingId,
      status: error.status,
      errorCode: error.code,
      ...(failure && { failure, body: retained.body, headers: retained.headers, query: retained.query }),
      latencyMs: performance.now() - started,
    });
  }
}
