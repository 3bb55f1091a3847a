import { PushedItems } from '../../utils/pushed-items.js';
import { currentTraceparent } from '../../tracing/tracing.js';
import { ProviderAbortError, ProviderConnectionError, ProviderHttpError } from './provider-errors.js';
import { SseDecoder } from './sse-decoder.js';
import { UpstreamExchange, type BodySink, type ExchangeRequest } from './upstream-exchange.js';
import { requestJson } from '../request-json.js';
import type { AbortSource } from '../../time/lazy-abort.js';

export interface OpenAICompatibleClientConfig {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` */
  baseUrl: string;
  apiKey?: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
/** an error body is read up to this much: enough for any error object, bounded against a runaway upstream */
const MAX_ERROR_BODY_BYTES = 1 << 20;

/**
 * The HTTP hop to an OpenAI-compatible upstream (OpenAI, Ollama, vLLM, llama.cpp, a router):
 * POST a JSON body, read a JSON answer or an SSE stream of JSON chunks, abort through a signal.
 * Bodies go out as they are (any field: tools, response_format, a provider's own) and chunks
 * come back parsed but untouched. Why not the official `openai` client: per completion it cost
 * more of herald's CPU than everything else together (its request building and option
 * handling, a fetch Response, web-stream SSE decoding); this is undici's dispatcher on
 * kept-alive sockets (upstream-exchange.ts) and strings. What the client did that callers rely
 * on is kept: its error shapes and messages (provider-errors.ts), no hidden retries, no time
 * limit of its own (the caller's signal is the limit), compressed answers and redirects.
 */
export class OpenAICompatibleClient {
  private readonly base: URL;
  private readonly authorization?: string;
  /** the URL of each path posted to (never changed: a redirect makes a new one) */
  private readonly urls = new Map<string, URL>();

  constructor(config: OpenAICompatibleClientConfig) {
    this.base = new URL(config.baseUrl.replace(/\/+$/, ''));
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new Error(`baseUrl must be http(s): ${config.baseUrl}`);
    if (config.apiKey) this.authorization = `Bearer ${config.apiKey}`;
  }

  /**
   * POSTs `body` to `path` (below the base URL) and resolves with the parsed JSON of a 2xx answer.
   * Its own loop over `open`'s steps (redirects, a refusal): a 2xx answer arrives whole
   * (UpstreamExchange.whole), one promise where `open` and a read of the body are two more.
   */
  async post(path: string, body: unknown, signal?: AbortSource): Promise<unknown> {
    let hop = this.firstHop(path, requestJson(body), 'application/json', signal);
    for (let redirects = 0; ; redirects++) {
      const exchange = await UpstreamExchange.whole(hop);
      if (exchange.body !== undefined) return answerJson(exchange, exchange.body);
      const next = redirected(exchange, hop, redirects);
      if (!next) throw await refusal(exchange);
      hop = next;
    }
  }

  /**
   * POSTs `body` (which asks for `stream: true`) and yields the parsed JSON of each server-sent
   * event as it arrives, until `data: [DONE]`. An `error` in the stream is thrown as the
   * upstream's error; a stream that breaks off throws. Leaving the loop early aborts the request.
   */
  async *stream(path: string, body: unknown, signal?: AbortSource): AsyncGenerator<unknown, void, undefined> {
    const exchange = await this.open(path, requestJson(body), 'text/event-stream', signal);
    const pushed = new PushedItems<unknown>();
    const reader = new EventReader(exchange, (chunk) => pushed.push(chunk), () => pushed.notify());
    exchange.read(reader);
    let finished = false;
    try {
      for (;;) {
        const chunks = pushed.take();
        for (const chunk of chunks) yield chunk;
        if (reader.failure !== undefined) throw reader.failure;
        if (reader.done) break;
        if (!chunks.length) await pushed.arrival();
      }
      // a stream that ends without [DONE] is taken as complete, as the official client does
      finished = true;
    } catch (error) {
      throw streamFailure(error, signal);
    } finally {
      // left early (the caller stopped reading, or a failure): the upstream stops generating
      if (!finished) exchange.abort();
      exchange.done();
    }
  }

  /**
   * The same stream as `stream()`, each event's parsed JSON handed to `onChunk` synchronously as
   * the piece of the body holding it is read: no promise and no generator step per event (a
   * streamed token goes from the upstream's socket to herald's client in one call chain).
   * Resolves once the stream is whole; `onChunk` throwing ends it (the request is aborted).
   * `onOpen` is called once the upstream accepted (a 2xx answer's headers are in).
   */
  streamEach(path: string, body: unknown, onChunk: (chunk: unknown) => void, signal?: AbortSource, onOpen?: () => void): Promise<void> {
    // one promise for the whole stream, settled from the reader's callback: not an async function awaiting a second one
    return new Promise<void>((resolve, reject) => {
      this.open(path, requestJson(body), 'text/event-stream', signal).then((exchange) => {
        let settled = false;
        const fail = (error: unknown) => {
          settled = true;
          exchange.abort();
          exchange.done();
          reject(streamFailure(error, signal));
        };
        const reader: EventReader = new EventReader(exchange, onChunk, () => {
          if (settled) return;
          if (reader.failure !== undefined) fail(reader.failure);
          else if (reader.done) {
            settled = true;
            exchange.done();
            resolve();
          }
        });
        try {
          onOpen?.();
        } catch (error) {
          return fail(error);
        }
        exchange.read(reader);
      }, reject);
    });
  }

  private urlOf(path: string): URL {
    const url = new URL(this.base.href + path);
    if (this.urls.size < 100) this.urls.set(path, url);
    return url;
  }

  /** the request as first sent: a POST of `body` to `path` with the client's credentials */
  private firstHop(path: string, body: string, accept: string, signal: AbortSource | undefined): Hop {
    const url = this.urls.get(path) ?? this.urlOf(path);
    return { url, method: 'POST', headers: requestHeaders(accept, body, this.authorization), body, signal, accept, authorization: this.authorization };
  }

  /** sends the request, follows redirects, and resolves once a final 2xx answer's headers are in (an error status is thrown) */
  private async open(path: string, body: string, accept: string, signal: AbortSource | undefined): Promise<UpstreamExchange> {
    let hop = this.firstHop(path, body, accept, signal);
    for (let redirects = 0; ; redirects++) {
      const exchange = await UpstreamExchange.open(hop);
      if (exchange.status >= 200 && exchange.status < 300) return exchange;
      const next = redirected(exchange, hop, redirects);
      if (!next) throw await refusal(exchange);
      hop = next;
    }
  }
}

/** one request of a call's redirect chain, with what the next one is made of */
interface Hop extends ExchangeRequest {
  accept: string;
  /** dropped once a redirect leaves the first origin */
  authorization: string | undefined;
}

/**
 * The request a redirect answer asks for, its own body read and dropped (its connection goes back
 * to the pool); undefined for any other answer, or past MAX_REDIRECTS. fetch's rules: 303, and
 * 301/302 after a POST, become a GET without a body; credentials stay on their origin.
 */
function redirected(exchange: UpstreamExchange, hop: Hop, redirects: number): Hop | undefined {
  const { status } = exchange;
  const location = REDIRECTS.has(status) && redirects < MAX_REDIRECTS ? firstOf(exchange.headers.location) : undefined;
  if (!location) return undefined;
  exchange.read(IGNORE);
  exchange.done();
  const url = new URL(location, hop.url);
  let { method, body } = hop;
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
  }
  const authorization = url.origin === hop.url.origin ? hop.authorization : undefined;
  return { url, method, headers: requestHeaders(hop.accept, body, authorization), body, signal: hop.signal, accept: hop.accept, authorization };
}

/** a final answer that is not a 2xx, as the error thrown: the upstream's error object when its body (read up to a bound) is JSON */
async function refusal(exchange: UpstreamExchange): Promise<ProviderHttpError> {
  try {
    const text = await readText(exchange, MAX_ERROR_BODY_BYTES).catch(() => '');
    const json = parseJson(text);
    return new ProviderHttpError(exchange.status, (json as { error?: unknown } | undefined)?.error, json === undefined ? text : undefined, exchange.headers);
  } finally {
    exchange.done();
  }
}

/** a 2xx answer's JSON; a body that is not JSON is the upstream's fault */
function answerJson(exchange: UpstreamExchange, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderHttpError(undefined, undefined, `the upstream answered ${exchange.status} with a body that is not JSON`, exchange.headers);
  }
}

/** the request's headers as a flat list (undici writes it as it is; it adds Host and Content-Length) */
function requestHeaders(accept: string, body: string | undefined, authorization: string | undefined): string[] {
  const headers = ['accept', accept, 'accept-encoding', 'gzip, deflate, br'];
  if (body !== undefined) headers.push('content-type', 'application/json');
  if (authorization) headers.push('authorization', authorization);
  // the model call's span (model-span.ts) continues at the provider when it traces too
  const traceparent = currentTraceparent();
  if (traceparent !== undefined) headers.push('traceparent', traceparent);
  return headers;
}

const IGNORE: BodySink = { data() {}, end() {}, fail() {} };

const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** what a stream's failure is thrown as: an abort as such, the upstream's own errors as they are, the rest as the connection's */
function streamFailure(error: unknown, signal: AbortSource | undefined): unknown {
  if (signal?.aborted) return new ProviderAbortError(signal.reason);
  if (error instanceof ProviderHttpError || error instanceof SyntaxError || error instanceof ProviderAbortError || error instanceof ProviderConnectionError) return error;
  return new ProviderConnectionError(error);
}

/**
 * The parsed events of an SSE body (the exchange's sink), handed to `onChunk` as the body's
 * pieces arrive; `changed` is called after each piece, at the end and on a failure. Why not
 * `for await` over a body stream: its async iterator costs promises and a result object per
 * piece on the path of every streamed token.
 */
class EventReader implements BodySink {
  /** `[DONE]` came: what follows is read (the connection goes back to the pool) but not parsed */
  private last = false;
  /** the body ended */
  done = false;
  /** the upstream's error event, an unparsable event, the connection's failure, or `onChunk`'s */
  failure: unknown;
  private readonly decoder = new SseDecoder((data, event) => this.event(data, event));

  constructor(
    private readonly exchange: UpstreamExchange,
    private readonly onChunk: (chunk: unknown) => void,
    private readonly changed: () => void,
  ) {}

  data(piece: string): void {
    if (this.last || this.failure !== undefined) return;
    try {
      this.decoder.push(piece);
    } catch (error) {
      this.failure = error;
    }
    this.changed();
  }

  /** one event of the body; a throw ends the stream (the decoder stops at it) */
  private event(data: string, event: string): void {
    if (this.last) return;
    if (data.startsWith('[DONE]')) {
      this.last = true;
      return;
    }
    const parsed = JSON.parse(data) as { error?: unknown; message?: string } | null;
    if (event === 'error' || parsed?.error) throw new ProviderHttpError(undefined, parsed?.error ?? parsed, undefined, this.exchange.headers);
    this.onChunk(parsed);
  }

  end(): void {
    this.done = true;
    this.changed();
  }

  fail(error: unknown): void {
    if (this.done || this.failure !== undefined) return;
    // after [DONE] the answer is whole: a connection lost before the body's end takes nothing from it
    if (this.last) this.done = true;
    else this.failure = error;
    this.changed();
  }
}

/** the whole body as text; more than `maxBytes` is an error (the connection is closed) */
function readText(exchange: UpstreamExchange, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      if (error === undefined) resolve(text);
      else reject(error instanceof ProviderAbortError || error instanceof ProviderConnectionError ? error : new ProviderConnectionError(error));
    };
    exchange.read({
      data(piece) {
        text += piece;
        if (text.length > maxBytes && !settled) {
          exchange.abort();
          settle(new Error(`the answer is larger than ${maxBytes} bytes`));
        }
      },
      end: () => settle(),
      fail: settle,
    });
  });
}
