import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { errorCatalog, HeraldError } from '../../errors.js';
import { openaiType } from '../error-handler.js';
import { startPings, stopPings } from './stream-pings.js';

export type SendEvent = (data: unknown) => void;

let alreadySent: Response | undefined;

/**
 * The answer that tells hono's node adapter the response was written already (its
 * `x-hono-already-sent` header, @hono/node-server's RESPONSE_ALREADY_SENT). Made here, with the
 * first stream, rather than imported: the adapter's module makes it at load time, which loads
 * Node's fetch classes as herald starts (src/http/server/hono-listener.ts).
 */
function responseAlreadySent(): Response {
  return (alreadySent ??= new Response(null, { headers: { 'x-hono-already-sent': 'true' } }));
}

/**
 * What a producer gets: `send` queues a frame (the frames of one event-loop turn go out as one
 * write); `sendJson` the same for data already serialized; `flush` writes what is queued now
 * (the first token: the client sees it before the rest of the upstream read is worked through);
 * `flushSoon` writes it once the current call chain is through (the frames of one upstream read,
 * handed on synchronously, go out as one write). `signal` aborts, and `onClose` listeners are
 * called, when the client goes away first.
 */
export interface SseOutput {
  send: SendEvent;
  sendJson(json: string): void;
  /** `sendJson` for the frames the stream ends with (the producer returns next): they go out with the end, not in a write of their own */
  sendLast(json: string): void;
  flush(): void;
  flushSoon(): void;
  readonly signal: AbortSignal;
  onClose(listener: () => void): void;
}

/** the OpenAI error object of any failure (unknown errors say no more than "internal error") */
export function openaiError(error: unknown) {
  const e = error instanceof HeraldError ? error : new HeraldError('HERALD_INTERNAL');
  return { message: e.message, type: openaiType(e.status), param: e.param ?? null, code: e.openaiCode ?? errorCatalog[e.code].openai };
}

export interface SseOptions {
  pingMs: number;
  headers?: Record<string, string>;
  onError?: (error: unknown) => void;
  /**
   * the Responses API's framing: each frame named by its data's `type` (`event: <type>`), no
   * `[DONE]`, a failure as an `error` event built by this function
   */
  typed?: { errorEvent: (error: unknown) => { type: string } };
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // nginx would otherwise buffer the stream and deliver it all at the end
  'x-accel-buffering': 'no',
};

/** where the frames go: Node's response itself, or a web stream (app.request() in tests) */
interface SseSink {
  /** sends text (the headers go with the first write); `now`: onto the socket before this turn's other work goes on */
  write(text: string, now?: boolean): void;
  /** sends the last text and ends the response */
  end(text: string): void;
}

/** what writes a stream's frames */
export type Produce = (out: SseOutput) => Promise<void>;

/**
 * The client going away before the stream's end: listeners, and a signal made only when a
 * producer asks for one (an AbortController and its EventTarget per stream cost more than a
 * listener array).
 */
class ClientGone {
  private listeners?: (() => void)[];
  private controller?: AbortController;
  private gone = false;

  on(listener: () => void): void {
    if (this.gone) listener();
    else (this.listeners ??= []).push(listener);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort(new Error('client closed the stream'));
    }
    return this.controller.signal;
  }

  fire(): void {
    if (this.gone) return;
    this.gone = true;
    this.controller?.abort(new Error('client closed the stream'));
    for (const listener of this.listeners ?? []) listener();
  }
}

/**
 * A server-sent-events response: `data: <json>` frames, `: ping` comments while `produce`
 * waits (proxies close silent connections), `data: [DONE]` at the end. A failure after the
 * headers went out becomes one `data: {"error":...}` frame. The signal aborts when the
 * client goes away.
 *
 * Under @hono/node-server the frames are written to Node's response directly: through a web
 * ReadableStream and the adapter's reader loop, a streamed completion cost twice the CPU (a
 * stream, a reader, promises per chunk, and a separate write for the headers).
 */
export function sseResponse(c: Context, produce: Produce, options: SseOptions): Response | Promise<Response> {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.writeHead !== 'function') return webStreamResponse(produce, options, c.req.raw.signal);
  streamSse(outgoing, produce, options);
  // the adapter leaves a response marked as already sent alone. Handed back on the check phase,
  // after undici's write of a model request `produce` dispatched in this turn (queued there
  // first): the framework's wind-up (the middleware after `next()`, the adapter's) runs while
  // the upstream works, not before the request goes out
  return new Promise((resolve) => setImmediate(resolve, responseAlreadySent()));
}

/** the frames written to Node's response itself (the chat's own listener, and hono's under @hono/node-server) */
export function streamSse(outgoing: ServerResponse, produce: Produce, options: SseOptions): void {
  const gone = new ClientGone();
  let closed = false;
  // `on`, not `once` (a wrapper per stream): a response closes once
  outgoing.on('close', () => {
    closed = true;
    if (!outgoing.writableFinished) gone.fire();
  });
  let headed = false;
  const head = () => {
    if (headed || closed) return;
    headed = true;
    outgoing.writeHead(200, options.headers ? Object.assign({}, SSE_HEADERS, options.headers) : SSE_HEADERS);
  };
  run(
    {
      write: (text, now) => {
        if (closed) return;
        head();
        // Node corks the socket on a write and uncorks it on the next tick, which waits for every
        // promise continuation queued behind this one (the rest of the upstream read): the first
        // token would wait with them. Corked here first, Node's write leaves the socket (and the
        // next tick) alone, and the uncork writes it at once
        const socket = outgoing.socket;
        if (now && socket) {
          socket.cork();
          outgoing.write(text);
          while (socket.writableCorked) socket.uncork();
        } else outgoing.write(text);
      },
      end: (text) => {
        if (closed) return;
        head();
        outgoing.end(text);
      },
    },
    produce,
    gone,
    options,
  );
  // The headers are made (writeHead builds their text) on the check phase, once `produce` began:
  // the model request it made at once is written there ahead of them (undici writes a request on
  // a reused socket on that phase), so their making is off the first token's path, done while
  // the upstream works; any frame before them makes them first. The headers the middleware set
  // on Node's response (X-Request-Id, the rate limit's: see setResponseHeader) go out with the
  // stream's: writeHead merges them
  setImmediate(head);
}

/** the frames through a web ReadableStream: for app.request() and any adapter without Node's response */
function webStreamResponse(produce: Produce, options: SseOptions, request?: AbortSignal): Response {
  const encoder = new TextEncoder();
  const gone = new ClientGone();
  // the request's own signal: a client of app.request() that aborts may never cancel the body
  request?.addEventListener('abort', () => gone.fire(), { once: true });
  let closed = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      run(
        {
          write: (text) => !closed && controller.enqueue(encoder.encode(text)),
          end: (text) => {
            if (closed) return;
            if (text) controller.enqueue(encoder.encode(text));
            closed = true;
            controller.close();
          },
        },
        produce,
        gone,
        options,
      );
    },
    cancel() {
      closed = true;
      gone.fire();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}

/**
 * What a producer is handed: its functions own properties (producers take them apart), `signal`
 * a getter on the prototype. A getter written in an object literal made per stream gives every
 * stream's output a map of its own whose descriptors hold the getter's closure; young-generation
 * collections keep such maps alive until a full collection, and with the closure the whole stream
 * (its response, request and turn) outlived every scavenge and was promoted to the old generation.
 */
class StreamOutput implements SseOutput {
  constructor(
    readonly send: SendEvent,
    readonly sendJson: (json: string) => void,
    readonly sendLast: (json: string) => void,
    readonly flush: () => void,
    readonly flushSoon: () => void,
    private readonly gone: ClientGone,
  ) {}

  get signal(): AbortSignal {
    return this.gone.signal;
  }

  readonly onClose = (listener: () => void): void => this.gone.on(listener);
}

/**
 * Runs `produce` and frames what it sends. The frames of one event-loop turn (an upstream read
 * often carries several) go out as one write, as soon as the turn ends (setImmediate: after the
 * turn's reads, before the store's group commit of the same turn), or with `flushSoon` once the
 * call chain is through; the last ones go out with the end of the response.
 */
function run(sink: SseSink, produce: Produce, gone: ClientGone, options: SseOptions): void {
  let pending = '';
  let scheduled = false;
  let soon = false;
  let ended = false;
  const flush = (now?: boolean) => {
    scheduled = false;
    if (!pending || ended) return;
    const text = pending;
    pending = '';
    sink.write(text, now);
  };
  const write = (text: string) => {
    if (ended) return;
    pending += text;
    // a flush already due (flushSoon's) takes this frame too: no turn's end to wait for
    if (!scheduled && !soon) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const pings = startPings(options.pingMs, () => write(': ping\n\n'));
  const typed = options.typed;
  const frame = typed ? (data: unknown) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n` : (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const send: SendEvent = (data) => write(frame(data));
  const sendJson = (json: string) => write(`data: ${json}\n\n`);
  const flushSoon = () => {
    if (soon) return;
    soon = true;
    queueMicrotask(() => {
      soon = false;
      flush(true);
    });
  };
  const sendLast = (json: string) => {
    if (!ended) pending += `data: ${json}\n\n`;
  };
  const out = new StreamOutput(send, sendJson, sendLast, () => flush(true), flushSoon, gone);
  // the last frames go out with the end, not first scheduled for a turn's end the stream does not wait for
  const finish = (last: string) => {
    stopPings(pings);
    const text = pending + last;
    pending = '';
    ended = true;
    sink.end(text);
  };
  // one reaction for either outcome (not a `finally` after it: two promises more per stream)
  produce(out).then(
    () => finish(typed ? '' : 'data: [DONE]\n\n'),
    (error) => {
      let last = '';
      try {
        options.onError?.(error);
        last = frame(typed ? typed.errorEvent(error) : { error: openaiError(error) });
      } finally {
        finish(last);
      }
    },
  );
}
