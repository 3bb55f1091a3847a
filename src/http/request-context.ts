import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../metrics/http-metrics.js';
import { randomUuid } from '../time/random-uuid.js';
import { requestHeader } from './request-headers.js';

declare module 'hono' {
  interface ContextVariableMap {
    requestId: string;
    /** the mapping that handled a hook request, for the access log */
    mappingId?: string;
    /** body bytes actually read, for the access log */
    bodyBytes?: number;
  }
}

const GOOD_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Gives every request an id (the caller's X-Request-Id when sane) and logs one line per
 * request: method, path (never the query: it may hold a token), status, latency, size.
 * With `metrics`, the same latency also feeds the request counter and histogram.
 */
export function requestContext(logger: Logger, metrics?: HttpMetrics): MiddlewareHandler {
  return async function requestContext(c, next) {
    const started = performance.now();
    const given = requestHeader(c, 'x-request-id');
    const id = given && GOOD_ID.test(given) ? given : randomUuid();
    c.set('requestId', id);
    // on Node's response itself, which merges it into whatever response the app makes: through
    // c.header() it would cost a fetch Headers object per request, and the adapter's conversion of it
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing?.setHeader) outgoing.setHeader('X-Request-Id', id);
    else c.header('X-Request-Id', id);
    await next();
    if (!outgoing?.setHeader && !c.res.headers.has('X-Request-Id')) {
      try {
        c.res.headers.set('X-Request-Id', id);
      } catch {
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set('X-Request-Id', id);
      }
    }
    const ms = performance.now() - started;
    metrics?.record(c.req.path, c.req.method, c.res.status, ms / 1000, c.get('mappingId'));
    // probes hit every few seconds: their lines would drown the rest, so they are debug
    const level = c.req.path === '/healthz' || c.req.path === '/readyz' ? 'debug' : 'info';
    // below the level (say warn) the line would be built only to be thrown away
    if (!logger.isLevelEnabled(level)) return;
    const declared = Number(requestHeader(c, 'content-length') ?? NaN);
    logger[level](
      {
        reqId: id,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(ms * 100) / 100,
        bodyBytes: c.get('bodyBytes') ?? (Number.isFinite(declared) ? declared : 0),
        ...(c.get('mappingId') && { mapping: c.get('mappingId') }),
      },
      'request',
    );
  };
}
