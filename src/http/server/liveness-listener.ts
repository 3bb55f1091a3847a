import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import { requestAnswered, requestIdFrom } from '../request/request-context.js';
import { carriedSurface } from '../request/request-surface.js';

export interface LivenessDeps {
  logger: Logger;
  metrics?: HttpMetrics;
}

/** what `GET /healthz` answers, here and through the app's own route (create-app.ts) */
export const LIVENESS_ANSWER = { ok: true } as const;

const BODY = JSON.stringify(LIVENESS_ANSWER);

/**
 * Answers `GET /healthz` (and HEAD) from Node's request, as the app's own route answers it (the
 * same body, Content-Type and X-Request-Id, the same access-log line and metrics), and hands every
 * other request to `rest`. A probe hits it every few seconds, and the first one comes as the
 * process starts: answered here, neither needs hono's node adapter, which loads Node's fetch
 * classes and node:http2 with it (src/http/server/hono-listener.ts loads it with the first request that
 * does). Anything but the plain target (a query, a missing Host) goes to `rest`, which decides it
 * as before.
 */
export function withLiveness(deps: LivenessDeps, rest: RequestListener): RequestListener {
  return function livenessListener(incoming, outgoing) {
    const { method } = incoming;
    if (incoming.url !== '/healthz' || (method !== 'GET' && method !== 'HEAD') || !incoming.headers.host) return rest(incoming, outgoing);
    const started = performance.now();
    const id = requestIdFrom(incoming.headers['x-request-id'] as string | undefined);
    outgoing.writeHead(200, { 'X-Request-Id': id, 'Content-Type': 'application/json', 'Content-Length': BODY.length });
    requestAnswered(deps.logger, deps.metrics, {
      id,
      method,
      path: '/healthz',
      surface: carriedSurface(incoming),
      status: 200,
      started,
      mappingId: undefined,
      bodyBytes: undefined,
      declaredLength: incoming.headers['content-length'],
    });
    outgoing.end(method === 'HEAD' ? undefined : BODY);
  };
}
