import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { getPath } from 'hono/utils/url';
import { trimSlashes } from '../../mappings/hook-request.js';
import type { HttpMetrics } from '../../metrics/http-metrics.js';
import type { ReceiptRecorder } from '../../runtime/receipts/receipt-recorder.js';
import { refusalOnNode } from '../error-handler.js';
import { nodeClientAddress, openNodeRequest, readNodeBody } from '../server/node-request.js';
import { requestAnswered } from '../request-context.js';
import { isSurfacePath } from '../server/surface-router.js';
import type { TrustedProxies } from '../trusted-proxies.js';
import { answerHook, type HookRouteDeps } from './answer-hook.js';
import type { HookAnswer, HookExchange } from './hook-exchange.js';
import { closeReceipt, openReceipt } from './receipt-middleware.js';
import { absoluteUrl } from '../request-url.js';
import { hooksPrefix } from '../../config/hooks-path.js';

export interface HooksListenerDeps extends HookRouteDeps {
  proxies: TrustedProxies;
  /** when given, every webhook request leaves a receipt */
  receipts?: ReceiptRecorder;
  metrics?: HttpMetrics;
}

/**
 * Answers the webhook surface from Node's request and response, and hands every other request to
 * `rest` (hono's listener). A webhook call is the gateway's hottest path, and hono's fetch
 * Request, context, middleware chain and Response are work it does not need; here the same
 * route (`answerHook`) runs with what the app's middleware would have done around it: the
 * request id, the client address, the receipt, the error's answer, the access log and metrics.
 * A request whose target does not plainly name the surface (no Host, `..`, a bad URL) goes to
 * `rest`, which decides it as before.
 */
export function withHooksSurface(deps: HooksListenerDeps, rest: RequestListener): RequestListener {
  const prefix = hooksPrefix(deps.config.hooks.path);
  if (!deps.config.hooks.enabled || !prefix) return rest;
  return function hooksListener(incoming, outgoing) {
    const target = incoming.url ?? '';
    const next = target.charCodeAt(prefix.length);
    // `/hooks`, `/hooks/…` or `/hooks?…`, and nothing hono's URL parse could make something else
    const plain = target.startsWith(prefix) && (Number.isNaN(next) || next === 47 || next === 63) && !target.includes('\\') && !target.includes('/.');
    const url = plain ? absoluteUrl(incoming, target) : undefined;
    if (url === undefined) return rest(incoming, outgoing);
    const path = getPath({ url } as Request);
    if (!isSurfacePath(prefix, path)) return rest(incoming, outgoing);
    answer(deps, prefix, incoming, outgoing, url, path).catch((error: unknown) => {
      deps.logger.error({ err: error }, 'webhook request failed outside its route');
      outgoing.destroy();
    });
  };
}

async function answer(deps: HooksListenerDeps, prefix: string, incoming: IncomingMessage, outgoing: ServerResponse, url: string, fullPath: string): Promise<void> {
  const { started, headers, requestId } = openNodeRequest(incoming, outgoing);
  const method = incoming.method ?? 'GET';
  const path = trimSlashes(fullPath.slice(prefix.length));
  const receipt = deps.receipts && openReceipt(requestId, method, path);
  const x: HookExchange = {
    method,
    path,
    url,
    headers,
    clientAddress: nodeClientAddress(deps.proxies, incoming, headers),
    requestId,
    notes: receipt,
    mappingId: undefined,
    bodyBytes: undefined,
    readBody: (limits) => readNodeBody(incoming, headers, limits),
    setHeader: (name, value) => outgoing.setHeader(name, value),
  };
  let reply: HookAnswer;
  let error: unknown;
  try {
    reply = await answerHook(x, deps);
  } catch (thrown) {
    error = thrown;
    reply = { ...refusalOnNode(outgoing, thrown, deps.logger, requestId, fullPath), contentType: 'application/json' };
  }
  // recorded and logged as the app's middleware does, before the answer is written
  if (receipt) {
    receipt.mappingId = x.mappingId;
    receipt.bodyBytes = x.bodyBytes ?? 0;
    closeReceipt(deps.receipts!, receipt, { status: reply.status, error, clientAddress: x.clientAddress, started });
  }
  requestAnswered(deps.logger, deps.metrics, {
    id: requestId,
    method,
    path: fullPath,
    status: reply.status,
    started,
    mappingId: x.mappingId,
    bodyBytes: x.bodyBytes,
    declaredLength: headers['content-length'],
  });
  write(outgoing, reply);
  // refused before its body was read (401, 405, 429): what is left of it is read and dropped, so
  // the connection can take the next request, but no more of it than a body may hold, and not
  // for long; past either the socket is closed
  if (!incoming.readableEnded && !incoming.destroyed && !outgoing.hasHeader('connection')) dropUnread(incoming, deps.config.hooks.maxBodyBytes);
}

const DROP_UNREAD_MS = 500;

function dropUnread(incoming: IncomingMessage, maxBytes: number): void {
  let dropped = 0;
  const close = () => {
    done();
    incoming.socket?.destroySoon();
  };
  const timer = setTimeout(close, DROP_UNREAD_MS).unref();
  const onData = (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > maxBytes) close();
  };
  function done() {
    clearTimeout(timer);
    incoming.off('data', onData).off('end', done).off('error', done);
  }
  incoming.on('data', onData).on('end', done).on('error', done).resume();
}

function write(outgoing: ServerResponse, reply: HookAnswer): void {
  const { body } = reply;
  const head: Record<string, string | number> = { ...reply.headers };
  if (reply.contentType) head['Content-Type'] = reply.contentType;
  if (body !== null) head['Content-Length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  outgoing.writeHead(reply.status, head);
  outgoing.end(body ?? undefined);
}
