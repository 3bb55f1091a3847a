import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveClientAddress } from '../request/client-address.js';
import { readIncoming, refuseDeclaredTooLarge, type BodyLimits } from '../request/read-body.js';
import { requestIdFrom } from '../request/request-context.js';
import { headersOfRaw } from '../request/request-headers.js';
import { carriedSurface, type RequestSurface } from '../request/request-surface.js';
import type { TrustedProxies } from '../request/trusted-proxies.js';
import type { Answer, Cancellable, Exchange } from './exchange.js';
import { runExchange, type ExchangeSurface, type PipelineDeps } from './exchange-pipeline.js';
import { streamSse } from './sse-response.js';

export interface NodeDoorDeps extends PipelineDeps {
  proxies: TrustedProxies;
  /** the most of a refused call's unread body that is read and dropped to keep its connection */
  maxBodyBytes: number;
}

/** a request target the door takes: its URL as hono would make it, and its path */
export interface NodeTarget {
  url: string;
  path: string;
}

/**
 * A surface's door on Node's own request and response (`herald serve`): hono's fetch Request,
 * context, middleware chain and Response are work a hot path does not need, on its CPU and before
 * its first token. It opens the exchange (the request id, echoed on the answer; the client's
 * address; the headers), runs the surface's pipeline, and writes its answer.
 */
export function nodeDoor<Admitted>(surface: ExchangeSurface<Admitted>, deps: NodeDoorDeps) {
  return function answerOnNode(incoming: IncomingMessage, outgoing: ServerResponse, target: NodeTarget): void {
    const x = openNodeExchange(deps.proxies, incoming, outgoing, target);
    runExchange(surface, deps, x, (answer) => writeOnNode(incoming, outgoing, x.answerHeaders, answer, deps.maxBodyBytes)).catch((error: unknown) => {
      deps.logger.error({ err: error, path: target.path }, 'request failed outside its route');
      outgoing.destroy();
    });
  };
}

function openNodeExchange(proxies: TrustedProxies, incoming: IncomingMessage, outgoing: ServerResponse, target: NodeTarget): NodeExchange {
  const started = performance.now();
  const headers = headersOfRaw(incoming.rawHeaders);
  const requestId = requestIdFrom(headers['x-request-id']);
  const clientAddress = resolveClientAddress(proxies, incoming.socket?.remoteAddress ?? 'local', () => headers);
  return new NodeExchange(requestId, incoming, outgoing, target, headers, started, clientAddress);
}

/** an exchange on Node's request and response: its methods on the prototype, not closures made per request */
class NodeExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly surface: RequestSurface;
  readonly url: string;
  mappingId: string | undefined = undefined;
  bodyBytes: number | undefined = undefined;
  /**
   * The answer's headers by lower-cased name (a later value replaces an earlier, as Node's
   * setHeader does), handed to writeHead with the answer's own: Node's setHeader per header, and
   * writeHead's merge of them, were a dozen calls per completion for five headers.
   */
  readonly answerHeaders: Record<string, string | number>;

  constructor(
    readonly requestId: string,
    private readonly incoming: IncomingMessage,
    private readonly outgoing: ServerResponse,
    target: NodeTarget,
    readonly headers: Readonly<Record<string, string>>,
    readonly started: number,
    readonly clientAddress: string,
  ) {
    this.method = incoming.method ?? 'GET';
    this.path = target.path;
    this.surface = carriedSurface(incoming);
    this.url = target.url;
    this.answerHeaders = { 'x-request-id': requestId };
  }

  readBody(limits: BodyLimits): Promise<Uint8Array> {
    refuseDeclaredTooLarge(this.headers['content-length'], limits);
    return readIncoming(this.incoming, limits);
  }

  setHeader(name: string, value: string): void {
    this.answerHeaders[name.toLowerCase()] = value;
  }

  whenClientGone(work: Cancellable): void {
    cancelWhenResponseCloses(this.outgoing, work);
  }
}

const CANCELLED_ON_CLOSE = Symbol('herald.cancelledOnClose');

/**
 * `work` cancelled when Node's response closes before it finished: its client went away. The
 * work is kept on the response and one listener serves every response (the emitter is its
 * `this`): no closure per request. `on`, not `once` (a wrapper and its state per request): a
 * response closes once.
 */
export function cancelWhenResponseCloses(outgoing: ServerResponse, work: Cancellable): void {
  (outgoing as ServerResponse & { [CANCELLED_ON_CLOSE]?: Cancellable })[CANCELLED_ON_CLOSE] = work;
  outgoing.on('close', cancelIfUnfinished);
}

function cancelIfUnfinished(this: ServerResponse & { [CANCELLED_ON_CLOSE]?: Cancellable }): void {
  if (!this.writableFinished) this[CANCELLED_ON_CLOSE]?.cancel('Client connection prematurely closed.');
}

/** the answer with its headers (`head`, the exchange's: lower-cased names) in one writeHead */
function writeOnNode(incoming: IncomingMessage, outgoing: ServerResponse, head: Record<string, string | number>, answer: Answer, maxBodyBytes: number): void {
  if ('stream' in answer) {
    const { options } = answer;
    withHeaders(head, options.headers);
    return streamSse(outgoing, answer.stream, { pingMs: options.pingMs, headers: head as Record<string, string>, onError: options.onError, typed: options.typed });
  }
  const { body } = answer;
  withHeaders(head, answer.headers);
  if (answer.contentType) head['content-type'] = answer.contentType;
  if (body !== null) head['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  outgoing.writeHead(answer.status, head);
  outgoing.end(body ?? undefined);
  if (incoming.readableEnded || incoming.destroyed || head.connection !== undefined) return;
  // all of it received and read (a body taken from the request's buffer is taken before the
  // parser pushes its end): nothing to drop, the read that ends it is one tick, where dropping
  // was a timer, three listeners and flowing mode's ticks for every such request (nearly all)
  if (incoming.complete && incoming.readableLength === 0) incoming.read();
  // refused before its body was read (401, 405, 429): what is left of it is read and dropped, so
  // the connection can take the next request, but no more of it than a body may hold, and not
  // for long; past either the socket is closed
  else dropUnread(incoming, maxBodyBytes);
}

/** `more` set on `head` by lower-cased name */
function withHeaders(head: Record<string, string | number>, more: Record<string, string> | undefined): void {
  for (const name in more) head[name.toLowerCase()] = more[name]!;
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
