import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import { trimSlashes, type HookRequest } from '../../mappings/hook-request.js';
import type { HookIntake, HookOutcome } from '../../runtime/hook-intake.js';
import type { CompiledMapping } from '../../mappings/compiled-mapping.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';
import { readBody } from '../read-body.js';
import { requestHeaders } from '../request-headers.js';
import { checkToken } from '../token-auth.js';
import { parseHookPayload } from './hook-payload.js';
import { presentedHookToken } from './hook-token.js';
import { bodyIdempotencyKey, idempotencyKeyOf } from './idempotency-key-header.js';
import { admitBySignature, signatureCandidates } from './signature-auth.js';
import { noteReceipt, type ReceiptNotes } from './receipt-middleware.js';

export interface HooksRoutesDeps {
  config: HeraldConfig;
  /** which mappings of a path accept a signature instead of the token (authentication only) */
  engine: MappingsEngine;
  /** the use case: idempotency, mapping, dispatch */
  intake: HookIntake;
  limiter: FailedAuthLimiter;
  logger: Logger;
}

/**
 * The webhook surface: method, auth and body are HTTP's; what becomes of the call is the hook
 * intake's (src/runtime/hook-intake.ts), whose outcome is formatted here.
 */
export function hooksRoutes(deps: HooksRoutesDeps): Hono {
  const { hooks } = deps.config;
  const prefix = hooks.path.replace(/\/+$/, '');
  const app = new Hono();
  app.all('*', async (c) => {
    const path = trimSlashes(c.req.path.slice(prefix.length));
    if (c.req.method === 'GET') {
      const handshakes = deps.engine.getHandshakes(path);
      if (handshakes.length) return answer(c, await getHandshake(c, deps, path, handshakes));
    }
    if (c.req.method !== 'POST') {
      throw new HeraldError('HERALD_METHOD_NOT_ALLOWED', undefined, { headers: { Allow: 'POST' } });
    }
    const presented = presentedHookToken(c);
    // no token, but the path's mappings declare auth: the signature is checked once the raw body is read.
    // A presented token decides by itself (a wrong one is not rescued by a signature), except a
    // bearer on a path whose auth is `bearer`: that header is the credential its auth checks.
    const signed = signatureCandidates(deps.engine.signedMappings(path), presented, hooks.token);
    // the receipt's notes, written field by field as the route learns them (no object per note)
    const notes: ReceiptNotes = c.get('receiptNotes') ?? {};
    notes.authMethod = signed.length ? 'signature' : (presented?.form ?? 'none');
    if (signed.length) deps.limiter.refuseWhileLimited(c, path);
    else checkToken(c, deps.limiter, presented?.token, hooks.token);
    if (presented?.form === 'query') {
      c.header('Deprecation', 'true');
      deps.logger.warn({ reqId: c.get('requestId') }, 'hook token sent as ?token= (deprecated): send Authorization: Bearer instead');
    }

    const bytes = await readBody(c, { maxBytes: hooks.maxBodyBytes, idleTimeoutMs: hooks.bodyTimeoutMs });
    c.set('bodyBytes', bytes.byteLength);
    const allHeaders = requestHeaders(c);
    // over the exact bytes received, before any parsing
    if (signed.length) notes.signature = 'invalid';
    const signedBy = signed.length ? admitBySignature(c, deps.limiter, path, signed, allHeaders, bytes) : undefined;
    // what the mapping, the transform and a retained payload see: never the hook token
    const headers = withoutCredentials(allHeaders);
    // c.req.url is already normalised (the adapter built it with new URL): the URL without its query is a cut, not a parse
    const { url } = c.req;
    const queryAt = url.indexOf('?');
    const query = queryAt < 0 ? {} : withoutToken(c.req.query());
    notes.body = bytes;
    notes.headers = headers;
    notes.query = query;
    if (signedBy) notes.signature = signedBy.map((m) => m.id).join(',');
    const headerKey = idempotencyKeyOf(c);
    notes.idempotencyKey = headerKey;
    const request: HookRequest = {
      path,
      payload: await parseHookPayload(path, bytes, headers['content-type']),
      headers,
      query,
      url: queryAt < 0 ? url : url.slice(0, queryAt),
    };
    const key = headerKey ?? bodyIdempotencyKey(path, request.payload);

    const outcome = await deps.intake.accept({
      request,
      body: bytes,
      idempotencyKey: key,
      signedBy,
      onMatch: (mappingId) => c.set('mappingId', mappingId),
    });
    notes.outcome = outcome.replayed ? 'idempotent_replay' : outcome.type === 'skipped' ? 'skip' : outcome.type === 'responded' ? (outcome.runId ? 'agent' : 'respond') : outcome.status === 200 ? 'wake' : 'agent';
    notes.runId = outcome.type === 'responded' ? outcome.runId : outcome.body && 'runId' in outcome.body ? outcome.body.runId : undefined;
    notes.eventId = outcome.eventId;
    notes.idempotencyKey = outcome.idempotencyKey;
    if (outcome.replayed) c.header('Idempotent-Replayed', 'true');
    return answer(c, outcome);
  });
  return app;
}

/** the outcome as HTTP: a mapping's own answer as it said, the rest as JSON */
function answer(c: Context, outcome: HookOutcome): Response {
  if (outcome.type === 'skipped') return c.body(null, 204);
  if (outcome.type !== 'responded') return c.json(outcome.body, outcome.status);
  const { response } = outcome;
  return c.body(response.body, response.status as ContentfulStatusCode, { ...response.headers, 'Content-Type': response.contentType });
}

/**
 * A GET to a path with a GET handshake (Meta's hub.challenge): admitted by the hook token, or
 * without one by the query token a mapping declares (`respond.verifyToken`, constant time); a
 * wrong or missing one is 401, counted like a wrong hook token.
 */
async function getHandshake(c: Context, deps: HooksRoutesDeps, path: string, handshakes: CompiledMapping[]): Promise<HookOutcome> {
  const presented = presentedHookToken(c);
  const query = c.req.query();
  let admitted: CompiledMapping[];
  if (presented) {
    noteReceipt(c, { authMethod: presented.form });
    checkToken(c, deps.limiter, presented.token, deps.config.hooks.token);
    admitted = handshakes;
  } else {
    noteReceipt(c, { authMethod: 'verify-token' });
    deps.limiter.refuseWhileLimited(c, path);
    admitted = handshakes.filter((m) => m.respond?.verifyToken?.(query));
    if (!admitted.length) {
      deps.limiter.failed(c, handshakes.some((m) => m.respond?.verifyToken) ? 'wrong token' : 'missing token', path);
      throw new HeraldError('HERALD_UNAUTHORIZED');
    }
  }
  const headers = withoutCredentials(requestHeaders(c));
  const { url } = c.req;
  const queryAt = url.indexOf('?');
  const request: HookRequest = { path, payload: {}, headers, query: withoutToken(query), url: queryAt < 0 ? url : url.slice(0, queryAt) };
  noteReceipt(c, { headers, query: request.query });
  const outcome = await deps.intake.handshake({ request, onMatch: (mappingId) => c.set('mappingId', mappingId) }, admitted);
  noteReceipt(c, { outcome: 'respond' });
  return outcome;
}

/** the header names that carry the hook token */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-gateway-token', 'x-openclaw-token']);

function withoutCredentials(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) if (!CREDENTIAL_HEADERS.has(name)) out[name] = headers[name]!;
  return out;
}

function withoutToken(query: Record<string, string>): Record<string, string> {
  delete query.token;
  return query;
}
