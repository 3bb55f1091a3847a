import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import { lazyHonoListener } from './hono-listener.js';
import { withLiveness } from './liveness-listener.js';
import { withoutQuery } from '../request/request-url.js';
import { activeHooksPrefix, carriedSurface, enterSurface } from '../request/request-surface.js';
import { withRequestSpans } from './request-span.js';

/** what the server needs of the gateway: its app, the routes it answers from Node's request and where its webhook surface lies */
export interface ServedGateway {
  app: { fetch: Parameters<typeof lazyHonoListener>[0] };
  withNodeRoutes(rest: RequestListener): RequestListener;
  config: { hooks: { enabled: boolean; path: string }; tracing?: { trustIncomingContext: { hooks: boolean; v1: boolean } } };
  logger: Logger;
  metrics?: { http: HttpMetrics };
}

/** `herald serve`'s server (and the tests' herald), listening on `host`:`port` (0 picks a free one) */
export function listenGateway(gateway: ServedGateway, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = gatewayServer(gateway, host);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * The node server of the gateway: the webhook surface and chat completions (their Node doors,
 * exchange/node-door.ts) and `GET /healthz` (liveness-listener.ts) answered from Node's
 * request, the rest by hono (hono-listener.ts).
 *
 * A sender may half-close its socket once its request is sent (HTTP/1.0 tools, `nc`, scripts
 * that shut their side down): node's server, left as it is, then drops any answer not yet
 * written, which an answer waiting for its commit or a transform's worker is. The webhook was
 * accepted (its event or run stored) and its sender, with no answer, sends it again. So a
 * webhook's answer is written, then the socket closed. Every other request keeps node's way: a
 * client gone before its answer (a chat it gave up on) has its work cancelled at once.
 */
export function gatewayServer(gateway: ServedGateway, host: string): Server {
  const rest = withLiveness({ logger: gateway.logger, metrics: gateway.metrics?.http }, lazyHonoListener(gateway.app.fetch, host, gateway.logger));
  const prefix = activeHooksPrefix(gateway.config);
  const trust = gateway.config.tracing?.trustIncomingContext ?? { hooks: false, v1: false };
  const routes = withRequestSpans(gateway.withNodeRoutes(rest), trust);
  // the request's surface, decided here as it enters and carried on it for everything after (the span, the doors, the metrics)
  const server = createServer(function enteredRequest(incoming, outgoing) {
    enterSurface(incoming, withoutQuery(incoming.url ?? '/'), prefix);
    routes(incoming, outgoing);
  });
  if (!prefix) return server;
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // the webhook answers each socket owes (pipelined requests may owe several): its end waits for them (node's half-open handling)
  const owing = new WeakMap<Socket, number>();
  server.on('request', (req: IncomingMessage, res) => {
    if (carriedSurface(req) !== 'hooks') return;
    const { socket } = req;
    owing.set(socket, (owing.get(socket) ?? 0) + 1);
    res.once('close', () => owing.set(socket, owing.get(socket)! - 1));
  });
  server.on('connection', (socket: Socket) => {
    // what node does without half-open: the request in flight is abandoned, and its response's close cancels its work
    socket.on('end', () => {
      if (!owing.get(socket)) socket.destroy();
    });
  });
  return server;
}
