import { getQueryParam } from 'hono/utils/url';
import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import type { HookRequest } from '../../mappings/hook-request.js';
import type { HookOutcome } from '../../runtime/hook-call.js';
import type { HookIntake } from '../../runtime/hook-intake.js';
import type { CompiledMapping } from '../../mappings/compiled-mapping.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import { checkToken } from '../auth/token-auth.js';
import { parseHookPayload } from './hook-payload.js';
import { presentedHookToken } from './hook-token.js';
import { bodyIdempotencyKey, idempotencyKeyOf } from './idempotency-key-header.js';
import { admitBySignature, signatureCandidates } from './signature-auth.js';
import type { Exchange, WholeAnswer } from '../exchange/exchange.js';
import type { ReceiptNotes } from './hook-receipt.js';
import { withoutQuery } from '../request/request-url.js';

/** a call of the webhook surface as admitted: where under the surface, and its receipt's notes */
export interface AdmittedHook {
  /** the path under the surface, without its slashes (`agent`, `github/push`) */
  readonly path: string;
  /** the request's receipt, filled in field by field as the route learns (undefined: no receipts) */
  readonly notes: ReceiptNotes | undefined;
}

export interface HookRouteDeps {
  config: HeraldConfig;
  /** which mappings of a path accept a signature instead of the token (authentication only) */
  engine: MappingsEngine;
  /** the use case: idempotency, mapping, dispatch */
  intake: HookIntake;
  limiter: FailedAuthLimiter;
  logger: Logger;
}

/**
 * The webhook surface's route: method, auth and body are HTTP's; what becomes of the call is the
 * hook intake's (src/runtime/hook-intake.ts), whose outcome is formatted here. Refusals throw
 * a HeraldError, which the exchange pipeline turns into its answer.
 */
export async function answerHook(x: Exchange, call: AdmittedHook, deps: HookRouteDeps): Promise<WholeAnswer> {
  const { hooks } = deps.config;
  const { path } = call;
  if (x.method === 'GET') {
    const handshakes = deps.engine.getHandshakes(path);
    if (handshakes.length) return answerOf(await getHandshake(x, call, deps, handshakes));
  }
  if (x.method !== 'POST') {
    throw new HeraldError('HERALD_METHOD_NOT_ALLOWED', undefined, { headers: { Allow: 'POST' } });
  }
  const presented = presentedHookToken(x.headers, x.url);
  // no token, but the path's mappings declare auth: the signature is checked once the raw body is read.
  // A presented token decides by itself (a wrong one is not rescued by a signature), except a
  // bearer on a path whose auth is `bearer`, or Basic where it is `basic`: that header is the credential its auth checks.
  const signed = signatureCandidates(deps.engine.signedMappings(path), presented, hooks.token, x.headers.authorization);
  // the receipt's notes, written field by field as the route learns them (no object per note)
  const notes = call.notes ?? {};
  notes.authMethod = signed.length ? 'signature' : (presented?.form ?? 'none');
  if (!signed.length) checkToken(x, deps.limiter, presented?.token, hooks.token);
  if (presented?.form === 'query') {
    x.setHeader('Deprecation', 'true');
    deps.logger.warn({ reqId: x.requestId }, 'hook token sent as ?token= (deprecated): send Authorization: Bearer instead');
  }

  const bytes = await x.readBody({ maxBytes: hooks.maxBodyBytes, key: 'hooks.maxBodyBytes', idleTimeoutMs: hooks.bodyTimeoutMs });
  x.bodyBytes = bytes.byteLength;
  // over the exact bytes received, before any parsing
  if (signed.length) notes.signature = 'invalid';
  const signedBy = signed.length ? await admitBySignature(x, deps.limiter, path, signed, x.headers, bytes, x.url) : undefined;
  // what the mapping, the transform and a retained payload see: never the hook token
  const headers = withoutCredentials(x.headers);
  const query = x.url.includes('?') ? queryWithoutToken(x.url) : {};
  notes.body = bytes;
  notes.headers = headers;
  notes.query = query;
  if (signedBy) notes.signature = signedBy.map((m) => m.id).join(',');
  const headerKey = idempotencyKeyOf(x.headers);
  notes.idempotencyKey = headerKey;
  const parsed = parseHookPayload(path, bytes, headers['content-type']);
  const request: HookRequest = {
    path,
    payload: parsed instanceof Promise ? await parsed : parsed,
    headers,
    query,
    url: withoutQuery(x.url),
  };
  const key = headerKey ?? bodyIdempotencyKey(path, request.payload);

  const outcome = await deps.intake.accept({
    request,
    body: bytes,
    idempotencyKey: key,
    signedBy,
    onMatch: (mappingId) => (x.mappingId = mappingId),
  });
  notes.outcome = outcome.replayed ? 'idempotent_replay' : outcome.type === 'skipped' ? 'skip' : outcome.type === 'responded' ? (outcome.runId ? 'agent' : 'respond') : outcome.status === 200 ? 'wake' : outcome.tool ? 'tool' : 'agent';
  // a batch not wholly admitted names the runs that did start: the first is the receipt's
  notes.runId = outcome.type === 'responded' ? outcome.runId : outcome.body && 'runId' in outcome.body ? outcome.body.runId : outcome.body && 'runIds' in outcome.body ? (outcome.body.runIds as string[])[0] : undefined;
  notes.eventId = outcome.eventId;
  notes.idempotencyKey = outcome.idempotencyKey;
  // a forEach mapping that failed for some items: answered as OpenClaw does, recorded as a failed mapping
  if (outcome.failure) notes.failure = outcome.failure;
  if (outcome.errorCode) notes.errorCode = outcome.errorCode;
  if (outcome.replayed) x.setHeader('Idempotent-Replayed', 'true');
  return answerOf(outcome);
}

/** the outcome as HTTP: a mapping's own answer as it said, the rest as JSON */
function answerOf(outcome: HookOutcome): WholeAnswer {
  if (outcome.type === 'skipped') return { status: 204, body: null };
  if (outcome.type !== 'responded') return { status: outcome.status, body: JSON.stringify(outcome.body), contentType: 'application/json' };
  const { response } = outcome;
  return { status: response.status, body: response.body, contentType: response.contentType, headers: response.headers };
}

/**
 * A GET to a path with a GET handshake (Meta's hub.challenge): admitted by the hook token, or
 * without one by the query token a mapping declares (`respond.verifyToken`, constant time); a
 * wrong or missing one is 401, counted like a wrong hook token.
 */
async function getHandshake(x: Exchange, call: AdmittedHook, deps: HookRouteDeps, handshakes: CompiledMapping[]): Promise<HookOutcome> {
  const presented = presentedHookToken(x.headers, x.url);
  const query = getQueryParam(x.url) as Record<string, string>;
  let admitted: CompiledMapping[];
  if (presented) {
    if (call.notes) call.notes.authMethod = presented.form;
    checkToken(x, deps.limiter, presented.token, deps.config.hooks.token);
    admitted = handshakes;
  } else {
    if (call.notes) call.notes.authMethod = 'verify-token';
    admitted = handshakes.filter((m) => m.respond?.verifyToken?.(query));
    if (!admitted.length) {
      deps.limiter.failed(x, handshakes.some((m) => m.respond?.verifyToken) ? 'wrong token' : 'missing token', call.path);
      throw new HeraldError('HERALD_UNAUTHORIZED');
    }
    deps.limiter.succeeded(x, call.path);
  }
  const headers = withoutCredentials(x.headers);
  delete query.token;
  const request: HookRequest = { path: call.path, payload: {}, headers, query, url: withoutQuery(x.url) };
  if (call.notes) Object.assign(call.notes, { headers, query: request.query });
  const outcome = await deps.intake.handshake({ request, onMatch: (mappingId) => (x.mappingId = mappingId) }, admitted);
  if (call.notes) call.notes.outcome = 'respond';
  return outcome;
}

/** the header names that carry the hook token */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-gateway-token', 'x-openclaw-token']);

function withoutCredentials(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) if (!CREDENTIAL_HEADERS.has(name)) out[name] = headers[name]!;
  return out;
}

function queryWithoutToken(url: string): Record<string, string> {
  const query = getQueryParam(url) as Record<string, string>;
  delete query.token;
  return query;
}
