import { Hono } from 'hono';
import type { Logger } from 'pino';
import { HeraldError } from '../../errors.js';
import type { HeraldConfig } from '../../config/schema.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import { trimSlashes, type HookRequest } from '../../mappings/hook-request.js';
import type { DispatchAction } from '../../runtime/dispatch-action.js';
import type { Store } from '../../store/port.js';
import type { FailedAuthLimiter } from '../failed-auth-limiter.js';
import { parseJsonBody, readBody } from '../read-body.js';
import { checkToken } from '../token-auth.js';
import { HookIdempotency, idempotencyKeyOf, requestHash, type StoredResponse } from './hook-idempotency.js';
import { presentedHookToken } from './hook-token.js';
import { admitBySignature } from './signature-auth.js';

export interface HooksRoutesDeps {
  config: HeraldConfig;
  engine: MappingsEngine;
  dispatch: DispatchAction;
  limiter: FailedAuthLimiter;
  logger: Logger;
  store: Store;
}

/** The webhook surface: method, auth, body, then one mapping pipeline for every hook. */
export function hooksRoutes(deps: HooksRoutesDeps): Hono {
  const { hooks } = deps.config;
  const prefix = hooks.path.replace(/\/+$/, '');
  const idempotency = new HookIdempotency(deps.store.idempotency, {
    ttlMs: hooks.idempotencyTtlHours * 3_600_000,
    // past the longest a request can take (its transform's limit, then the store), a holder is presumed dead
    lockMs: hooks.transformTimeoutMs + 60_000,
  });
  const app = new Hono();
  app.all('*', async (c) => {
    if (c.req.method !== 'POST') {
      throw new HeraldError('HERALD_METHOD_NOT_ALLOWED', undefined, { headers: { Allow: 'POST' } });
    }
    const path = trimSlashes(c.req.path.slice(prefix.length));
    const presented = presentedHookToken(c);
    // no token, but the path's mappings declare auth: the signature is checked once the raw body is read.
    // A presented token always decides by itself (a wrong one is not rescued by a signature).
    const signed = presented ? [] : deps.engine.signedMappings(path);
    if (signed.length) deps.limiter.refuseWhileLimited(c, path);
    else checkToken(c, deps.limiter, presented?.token, hooks.token);
    if (presented?.form === 'query') {
      c.header('Deprecation', 'true');
      deps.logger.warn({ reqId: c.get('requestId') }, 'hook token sent as ?token= (deprecated): send Authorization: Bearer instead');
    }

    const bytes = await readBody(c, { maxBytes: hooks.maxBodyBytes, idleTimeoutMs: hooks.bodyTimeoutMs });
    c.set('bodyBytes', bytes.byteLength);
    const headers = Object.fromEntries(Object.entries(c.req.header()).map(([k, v]) => [k.toLowerCase(), v]));
    // over the exact bytes received, before any parsing
    const signedBy = signed.length ? admitBySignature(c, deps.limiter, path, signed, headers, bytes) : undefined;
    const key = idempotencyKeyOf(c);
    const url = new URL(c.req.url);
    const { token: _token, ...query } = c.req.query();
    const request: HookRequest = {
      path,
      payload: parseJsonBody(bytes),
      headers,
      query,
      url: `${url.origin}${url.pathname}`,
    };
    delete request.headers.authorization;
    delete request.headers['x-gateway-token'];
    delete request.headers['x-openclaw-token'];

    const prepare = async () => {
      const prepared = await deps.engine.prepare(request, { signedBy });
      c.set('mappingId', prepared.mappingId);
      return prepared;
    };
    const finish = async (prepared: Awaited<ReturnType<typeof prepare>>, runId?: string): Promise<StoredResponse> => {
      const outcome = await prepared.run();
      if (outcome.type === 'skip') return { status: 204, body: null };
      return deps.dispatch(outcome.action, { runId });
    };
    const send = (response: StoredResponse) =>
      response.body === null ? c.body(null, response.status as 204) : c.json(response.body as object, response.status as 200);

    /** processes the request once per key of this path; a repeat gets the stored response */
    const once = async (key: string, work: (runId: string) => Promise<StoredResponse>, options: { anyBody?: boolean } = {}) => {
      const started = await idempotency.start(path, key, requestHash(path, bytes), undefined, options);
      if (started.type === 'replay') {
        c.header('Idempotent-Replayed', 'true');
        return send(started.response);
      }
      let response: StoredResponse;
      try {
        response = await work(started.runId);
      } catch (error) {
        // only a success is remembered: a refused or failed request may be retried with its key
        await idempotency.release(path, key).catch((err) => deps.logger.error({ err }, 'idempotency key release failed'));
        throw error;
      }
      await idempotency.complete(path, key, response);
      return send(response);
    };

    // the header wins, and is claimed before any mapping work
    if (key !== undefined) return once(key, async (runId) => finish(await prepare(), runId));
    // else the mapping's `idempotencyKey` (the sender's delivery id), known once it matched and rendered:
    // claimed after the templates and before the transform and the dispatch, the only steps with effects
    const prepared = await prepare();
    if (prepared.idempotencyKey === undefined) return send(await finish(prepared));
    return once(prepared.idempotencyKey, (runId) => finish(prepared, runId), { anyBody: true });
  });
  return app;
}
