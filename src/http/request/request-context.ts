import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import { randomUuid } from '../../time/random-uuid.js';
import { requestHeader } from './request-headers.js';
import { annotate } from '../../tracing/tracing.js';
import { requestSurface, type RequestSurface } from './request-surface.js';

declare module 'hono' {
  interface ContextVariableMap {
    requestId: string;
    /** body bytes actually read, for the access log */
    bodyBytes?: number;
  }
}

const GOOD_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** the caller's X-Request-Id when sane, else a new one */
export function requestIdFrom(given: string | undefined): string {
  return given && GOOD_ID.test(given) ? given : randomUuid();
}

/**
 * Gives every request an id (the caller's X-Request-Id when sane) and logs one line per
 * request: method, path (never the query: it may hold a token), status, latency, size.
 * With `metrics`, the same latency also feeds the request counter and histogram, by the
 * request's surface (`hooksPrefix`: activeHooksPrefix's, for a request hono is the entry of).
 */
export function requestContext(logger: Logger, metrics: HttpMetrics | undefined, hooksPrefix: string): MiddlewareHandler {
  return async function requestContext(c, next) {
    const started = performance.now();
    const id = requestIdFrom(requestHeader(c, 'x-request-id'));
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
    requestAnswered(logger, metrics, {
      id,
      method: c.req.method,
      path: c.req.path,
      surface: requestSurface(c, hooksPrefix),
      status: c.res.status,
      started,
      mappingId: undefined,
      bodyBytes: c.get('bodyBytes'),
      declaredLength: requestHeader(c, 'content-length'),
    });
  };
}

export interface AnsweredRequest {
  id: string;
  method: string;
  path: string;
  surface: RequestSurface;
  status: number;
  /** performance.now() when it arrived */
  started: number;
  mappingId: string | undefined;
  /** what was read of the body; else what its Content-Length said */
  bodyBytes: number | undefined;
  declaredLength: string | undefined;
}

/** counts an answered request in the metrics and writes its access-log line */
export function requestAnswered(logger: Logger, metrics: HttpMetrics | undefined, r: AnsweredRequest): void {
  const ms = performance.now() - r.started;
  annotate({ 'http.response.status_code': r.status, 'herald.mapping.id': r.mappingId });
  metrics?.record(r.surface, r.method, r.status, ms / 1000, r.mappingId);
  // probes hit every few seconds: their lines would drown the rest, so they are debug
  const level = r.path === '/healthz' || r.path === '/readyz' ? 'debug' : 'info';
  // below the level (say warn) the line would be built only to be thrown away
  if (!logger.isLevelEnabled(level)) return;
  const declared = Number(r.declaredLength ?? NaN);
  logger[level](
    {
      reqId: r.id,
      method: r.method,
      path: r.path,
      status: r.status,
      ms: Math.round(ms * 100) / 100,
      bodyBytes: r.bodyBytes ?? (Number.isFinite(declared) ? declared : 0),
      ...(r.mappingId && { mapping: r.mappingId }),
    },
    'request',
  );
}
