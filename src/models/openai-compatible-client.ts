import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { PushedItems } from '../utils/pushed-items.js';
import { ProviderAbortError, ProviderConnectionError, ProviderHttpError } from './provider-errors.js';
import { SseDecoder } from './sse-decoder.js';

export interface OpenAICompatibleClientConfig {
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` */
  baseUrl: string;
  apiKey?: string;
}

// kept-alive connections, shared by every provider (a config reload makes new clients, not new sockets)
const agents = { 'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo' }), 'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo' }) };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
/** an error body is read up to this much: enough for any error object, bounded against a runaway upstream */
const MAX_ERROR_BODY_BYTES = 1 << 20;

interface Exchange {
  response: http.IncomingMessage;
  /** the body, decompressed, as text */
  body: Readable;
  /** lets go of the caller's signal; call it once the body is read or given up */
  done(): void;
}

/**
 * The HTTP hop to an OpenAI-compatible upstream (OpenAI, Ollama, vLLM, llama.cpp, a router):
 * POST a JSON body, read a JSON answer or an SSE stream of JSON chunks, abort through a signal.
 * Bodies go out as they are (any field: tools, response_format, a provider's own) and chunks
 * come back parsed but untouched. Why not the official `openai` client: per completion it cost
 * more of herald's CPU than everything else together (its request building and option
 * handling, a fetch Response, web-stream SSE decoding); this is node:http on kept-alive sockets
 * and strings. What the client did that callers rely on is kept: its error shapes and messages
 * (provider-errors.ts), no hidden retries, no time limit of its own (the caller's signal is
 * the limit), compressed answers and redirects.
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

  /** POSTs `body` to `path` (below the base URL) and resolves with the parsed JSON of a 2xx answer */
  async post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const exchange = await this.open(path, JSON.stringify(body), 'application/json', signal);
    try {
      const text = await readText(exchange, Infinity, signal);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new ProviderHttpError(undefined, undefined, `the upstream answered ${exchange.response.statusCode} with a body that is not JSON`, exchange.response.headers);
      }
    } finally {
      exchange.done();
    }
  }

  /**
   * POSTs `body` (which asks for `stream: true`) and yields the parsed JSON of each server-sent
   * event as it arrives, until `data: [DONE]`. An `error` in the stream is thrown as the
   * upstream's error; a stream that breaks off throws. Leaving the loop early aborts the request.
   */
  async *stream(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<unknown, void, undefined> {
    const exchange = await this.open(path, JSON.stringify(body), 'text/event-stream', signal);
    const { response } = exchange;
    const pushed = new PushedItems<unknown>();
    const reader = new EventReader(exchange, (chunk) => pushed.push(chunk), () => pushed.notify());
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
      if (!finished) response.destroy();
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
  async streamEach(path: string, body: unknown, onChunk: (chunk: unknown) => void, signal?: AbortSignal, onOpen?: () => void): Promise<void> {
    const exchange = await this.open(path, JSON.stringify(body), 'text/event-stream', signal);
    const { response } = exchange;
    try {
      onOpen?.();
      await new Promise<void>((resolve, reject) => {
        const reader: EventReader = new EventReader(exchange, onChunk, () => {
          if (reader.failure !== undefined) reject(reader.failure);
          else if (reader.done) resolve();
        });
      });
    } catch (error) {
      response.destroy();
      throw streamFailure(error, signal);
    } finally {
      exchange.done();
    }
  }

  private urlOf(path: string): URL {
    const url = new URL(this.base.href + path);
    if (this.urls.size < 100) this.urls.set(path, url);
    return url;
  }

  /** sends the request, follows redirects, and resolves once a final 2xx answer's headers are in (an error status is thrown) */
  private async open(path: string, body: string, accept: string, signal: AbortSignal | undefined): Promise<Exchange> {
    if (signal?.aborted) throw new ProviderAbortError(signal.reason);
    let url = this.urls.get(path) ?? this.urlOf(path);
    let method = 'POST';
    let payload: string | undefined = body;
    let authorization = this.authorization;
    for (let redirects = 0; ; redirects++) {
      const response = await send(url, method, payload, accept, authorization, signal);
      const status = response.response.statusCode ?? 0;
      const location = REDIRECTS.has(status) ? rawHeader(response.response, 'location') : undefined;
      if (location && redirects < MAX_REDIRECTS) {
        response.response.resume();
        response.done();
        const next = new URL(location, url);
        // fetch's rules: 303, and 301/302 after a POST, become a GET without a body; credentials stay on their origin
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          payload = undefined;
        }
        if (next.origin !== url.origin) authorization = undefined;
        url = next;
        continue;
      }
      if (status >= 200 && status < 300) return response;
      try {
        const text = await readText(response, MAX_ERROR_BODY_BYTES, signal).catch(() => '');
        const json = parseJson(text);
        throw new ProviderHttpError(status, (json as { error?: unknown } | undefined)?.error, json === undefined ? text : undefined, response.response.headers);
      } finally {
        response.done();
      }
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** the errors of a kept-alive socket the server closed as it was reused: nothing of the request reached it */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

function send(url: URL, method: string, body: string | undefined, accept: string, authorization: string | undefined, signal: AbortSignal | undefined, retried = false): Promise<Exchange> {
  // as a flat list: Node writes it as it is, where an object is copied in through setHeader's
  // checks one header at a time (the Host header is then this client's to send; the values are its own)
  const headers: string[] = ['Host', url.host, 'Accept', accept, 'Accept-Encoding', 'gzip, deflate, br'];
  if (body !== undefined) headers.push('Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)));
  if (authorization) headers.push('Authorization', authorization);
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let settled = false;
    let response: http.IncomingMessage | undefined;
    const onAbort = () => {
      const error = new ProviderAbortError(signal!.reason);
      request.destroy(error);
      response?.destroy(error);
      if (!settled) (settled = true), reject(error);
    };
    const done = () => signal?.removeEventListener('abort', onAbort);
    const request = (secure ? https : http).request(
      {
        protocol: url.protocol,
        // URL keeps the brackets of an IPv6 literal; a socket address has none
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || (secure ? 443 : 80),
        path: url.pathname + url.search,
        method,
        headers,
        agent: agents[secure ? 'https:' : 'http:'],
      },
      (res) => {
        response = res;
        settled = true;
        resolve({ response: res, body: decoded(res), done });
      },
    );
    // a failure after the answer began reaches its body (readText, the stream loop); this one is the connection's
    request.on('error', (error) => {
      if (settled) return;
      settled = true;
      done();
      // a kept-alive socket the server closed (its idle timeout) just as it was reused: sent again
      // once, on a fresh socket, as Node's documentation advises (http: request.reusedSocket)
      if (!retried && !signal?.aborted && request.reusedSocket && STALE_SOCKET.has((error as NodeJS.ErrnoException).code ?? '')) {
        resolve(send(url, method, body, accept, authorization, signal, true));
        return;
      }
      reject(signal?.aborted ? new ProviderAbortError(signal.reason) : new ProviderConnectionError(error));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}

/** headers of which Node's `headers` keeps the first of repeats (the rest it joins by ", ") */
const FIRST_ONLY = new Set(['location']);

/**
 * One header of an answer, read from its raw list as `IncomingMessage.headers` would give it:
 * that object is built on first access, every header lower-cased into it, for the one or two
 * that a successful answer needs.
 */
function rawHeader(res: http.IncomingMessage, lowerCaseName: string): string | undefined {
  const raw = res.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== lowerCaseName.length || name.toLowerCase() !== lowerCaseName) continue;
    if (value === undefined) value = raw[i + 1]!;
    else if (FIRST_ONLY.has(lowerCaseName)) break;
    else value = `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/** the body as text, decompressed as the upstream says (an SSE stream too: each piece is flushed as it comes) */
function decoded(res: http.IncomingMessage): Readable {
  const encoding = rawHeader(res, 'content-encoding')?.trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : encoding === 'deflate'
        ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : encoding === 'br'
          ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : undefined;
  const body: Readable = decoder ? res.pipe(decoder) : res;
  if (decoder) {
    res.on('error', (error) => decoder.destroy(error));
    // a connection that breaks mid-body ends the decoder too, as an error
    res.on('close', () => !res.complete && decoder.destroy(new Error('aborted')));
  }
  body.setEncoding('utf8');
  return body;
}

/** what a stream's failure is thrown as: an abort as such, the upstream's own errors as they are, the rest as the connection's */
function streamFailure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return new ProviderAbortError(signal.reason);
  return error instanceof ProviderHttpError || error instanceof SyntaxError ? error : new ProviderConnectionError(error);
}

/**
 * The parsed events of an SSE body, handed to `onChunk` by listeners as the body's pieces
 * arrive; `changed` is called after each piece, at the end and on a failure. Why not
 * `for await` over the body: its async iterator costs promises and a result object per piece
 * on the path of every streamed token.
 */
class EventReader {
  /** `[DONE]` came: what follows is read (the connection goes back to the pool) but not parsed */
  private last = false;
  /** the body ended */
  done = false;
  /** the upstream's error event, an unparsable event, the connection's failure, or `onChunk`'s */
  failure: unknown;

  constructor({ response, body }: Exchange, onChunk: (chunk: unknown) => void, changed: () => void) {
    const decoder = new SseDecoder();
    body.on('data', (piece: string) => {
      if (this.last || this.failure !== undefined) return;
      try {
        for (const event of decoder.push(piece)) {
          if (event.data.startsWith('[DONE]')) {
            this.last = true;
            break;
          }
          const data = JSON.parse(event.data) as { error?: unknown; message?: string } | null;
          if (event.event === 'error' || data?.error) throw new ProviderHttpError(undefined, data?.error ?? data, undefined, response.headers);
          onChunk(data);
        }
      } catch (error) {
        this.failure = error;
      }
      changed();
    });
    body.on('end', () => {
      this.done = true;
      changed();
    });
    const fail = (error: unknown) => {
      if (this.done || this.failure !== undefined) return;
      // after [DONE] the answer is whole: a connection lost before the body's end takes nothing from it
      if (this.last) this.done = true;
      else this.failure = error;
      changed();
    };
    body.on('error', fail);
    // the connection broke before the body was whole
    response.on('close', () => !response.complete && fail(new Error('aborted')));
  }
}

/** the whole body as text; more than `maxBytes` is an error */
function readText(exchange: Exchange, maxBytes: number, signal: AbortSignal | undefined): Promise<string> {
  const { response, body } = exchange;
  return new Promise((resolve, reject) => {
    let text = '';
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? new ProviderAbortError(signal.reason) : error instanceof ProviderAbortError ? error : new ProviderConnectionError(error));
    };
    body.on('data', (piece: string) => {
      text += piece;
      if (text.length > maxBytes) {
        response.destroy();
        fail(new Error(`the answer is larger than ${maxBytes} bytes`));
      }
    });
    body.on('end', () => {
      if (!settled) (settled = true), resolve(text);
    });
    body.on('error', fail);
    // the connection broke before the body was whole
    response.on('close', () => !response.complete && fail(new Error('aborted')));
  });
}
