import type { ServerResponse } from 'node:http';
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { peerOf, resolveClientAddress } from '../request/client-address.js';
import { readBody } from '../request/read-body.js';
import { requestIdFrom } from '../request/request-context.js';
import { requestHeaders } from '../request/request-headers.js';
import { requestSurface } from '../request/request-surface.js';
import type { TrustedProxies } from '../request/trusted-proxies.js';
import type { Answer, Cancellable, Exchange } from './exchange.js';
import { runExchange, type ExchangeSurface, type PipelineDeps } from './exchange-pipeline.js';
import { cancelWhenResponseCloses } from './node-door.js';
import { sseResponse } from './sse-response.js';

export interface HonoDoorDeps extends PipelineDeps {
  proxies: TrustedProxies;
  /** activeHooksPrefix's, for a request hono is the entry of */
  hooksPrefix: string;
}

/**
 * A surface's door as a hono route: what `app.request()` and any fetch-based server reach, and
 * what `herald serve` hands a target its Node door leaves to hono. It is the request's whole
 * handler: the app mounts it before its own middleware, whose request id, client address, log
 * line and error answer the pipeline gives this surface itself.
 */
export function honoDoor<Admitted>(surface: ExchangeSurface<Admitted>, deps: HonoDoorDeps): Handler {
  return function answerOnHono(c) {
    // the answer's headers, given to the response it becomes (a stream's included, which c.header() would miss)
    const headers: Record<string, string> = {};
    const x = openContextExchange(deps, c, headers);
    return runExchange(surface, deps, x, (answer) => respond(c, answer, headers));
  };
}

function openContextExchange({ proxies, hooksPrefix }: HonoDoorDeps, c: Context, answerHeaders: Record<string, string>): Exchange {
  const started = performance.now();
  const headers = requestHeaders(c);
  const requestId = requestIdFrom(headers['x-request-id']);
  answerHeaders['X-Request-Id'] = requestId;
  return {
    requestId,
    method: c.req.method,
    path: c.req.path,
    surface: requestSurface(c, hooksPrefix),
    // already normalised: the adapter built it with new URL
    url: c.req.url,
    headers,
    started,
    clientAddress: resolveClientAddress(proxies, peerOf(c), () => headers),
    mappingId: undefined,
    bodyBytes: undefined,
    readBody: (limits) => readBody(c, limits),
    setHeader: (name, value) => (answerHeaders[name] = value),
    whenClientGone: (work) => whenClientGone(c, work),
  };
}

function respond(c: Context, answer: Answer, headers: Record<string, string>): Response | Promise<Response> {
  if ('stream' in answer) return sseResponse(c, answer.stream, { ...answer.options, headers: { ...headers, ...answer.options.headers } });
  // a mapping's own headers as it said them, as Node's writeHead gives them over what was set before
  const head = answer.headers ? { ...headers, ...answer.headers } : headers;
  if (answer.contentType) head['Content-Type'] = answer.contentType;
  return c.body(answer.body as string, answer.status as ContentfulStatusCode, head);
}

/**
 * Calls `cancel` when the client goes away before its answer went out, as @hono/node-server's
 * `c.req.raw.signal` would abort; but touching `c.req.raw` makes the adapter build a whole fetch
 * Request (headers, body stream, AbortController) per request, a measurable part of it.
 */
function whenClientGone(c: Context, work: Cancellable): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.once === 'function') return cancelWhenResponseCloses(outgoing, work);
  const signal = c.req.raw.signal;
  if (signal.aborted) work.cancel(signal.reason);
  else signal.addEventListener('abort', () => work.cancel(signal.reason), { once: true });
}
