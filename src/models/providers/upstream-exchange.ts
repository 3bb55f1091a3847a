import type { IncomingHttpHeaders } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import { ProviderAbortError, ProviderConnectionError } from './provider-errors.js';
import { listenForAbort, unlistenForAbort, type AbortSource } from '../../time/lazy-abort.js';

/**
 * Kept-alive connections, shared by every provider (a config reload makes new clients, not new
 * sockets). No time limits of undici's own (300 s to the headers and between body pieces by
 * default): the caller's signal is the only limit, as a model may think for longer. undici is
 * loaded with the first model request, not at start: its modules lengthen a start and take idle
 * memory, and a gateway that only takes webhooks may never call a model. Only its Agent is loaded.
 */
let dispatcher: Dispatcher | undefined;
let loading: Promise<Dispatcher> | undefined;
// the Agent's own module, not the package's index: a third of the modules to load with the first model call (undici-agent.d.ts)
const loadDispatcher = () => (loading ??= import('undici/lib/dispatcher/agent.js').then(({ default: Agent }) => (dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 }))));

/** where an answer's body goes, as text (decompressed, whole UTF-8 characters) */
export interface BodySink {
  data(piece: string): void;
  end(): void;
  fail(error: unknown): void;
}

export interface ExchangeRequest {
  url: URL;
  method: string;
  /** a flat list of names and values */
  headers: string[];
  body: string | undefined;
  /** a signal, or a limit listened to without one (a chat completion's) */
  signal: AbortSource | undefined;
}

/** the errors of a kept-alive socket the server closed as it was reused: nothing of the request reached it */
const STALE_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * One HTTP exchange with an upstream through undici's dispatcher, resolved once the answer's
 * status and headers are in; its body is handed to a sink as it arrives (pieces that come
 * before the sink is attached are held). Why undici's dispatcher and not node:http: a request
 * and its answer cost less CPU (no ClientRequest, IncomingMessage or Readable per completion,
 * the request written in one piece). Aborting it (the caller's signal, a reader
 * that stops early) closes the connection, so the upstream stops generating.
 *
 * It takes undici's handler calls as its Request makes them (onConnect, onHeaders with the raw
 * header list, onData, onComplete, onError; typed deprecated in undici 7, where they are still
 * what its Request calls): a handler of the newer ones (onRequestStart, onResponseStart...) is
 * wrapped per request in an adapter and a controller, and has every answer's headers and
 * trailers made into objects, where an answer that succeeds needs only its Content-Encoding.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  status = 0;
  /** the answer's header list as undici read it: names and values, in order */
  private raw: Buffer[] = NO_HEADERS;
  private parsed?: IncomingHttpHeaders;
  private abortRequest?: (error: Error) => void;
  /** a 2xx answer's body, once `whole` read it */
  body: string | undefined = undefined;
  private opened?: { resolve(exchange: UpstreamExchange): void; reject(error: unknown): void };
  private sink?: BodySink;
  private held?: string[];
  /** how the body ended (with its error when it failed), when that came before a sink was attached */
  private outcome?: { error?: unknown };
  private inflate?: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress;
  private readonly text = new StringDecoder('utf8');
  private abortReason?: ProviderAbortError;

  private constructor(private readonly signal: AbortSource | undefined) {}

  /** sends the request; resolves with the exchange once the answer's headers are in */
  static open(request: ExchangeRequest): Promise<UpstreamExchange> {
    return new Promise((resolve, reject) => UpstreamExchange.send(request, false, resolve, reject));
  }

  /**
   * Sends the request; a 2xx answer resolves once its body is in, as text (`body`; the exchange is
   * done), any other as `open` resolves it, its body unread. A whole answer waits for one promise,
   * not one for its headers and one for its body.
   */
  static whole(request: ExchangeRequest): Promise<UpstreamExchange> {
    return new Promise((resolve, reject) =>
      UpstreamExchange.send(request, false, (exchange) => (exchange.status >= 200 && exchange.status < 300 ? exchange.read(new WholeBody(exchange, resolve, reject)) : resolve(exchange)), reject),
    );
  }

  /** sends the request: `opened` is called once the answer's headers are in, `failed` when none came */
  private static send(request: ExchangeRequest, retried: boolean, opened: (exchange: UpstreamExchange) => void, failed: (error: unknown) => void): void {
    const { url, signal } = request;
    if (signal?.aborted) return failed(new ProviderAbortError(signal.reason));
    const exchange = new UpstreamExchange(signal);
    // the retry is decided where the failure arrives, not in a promise chained after the request's (a promise fewer per request)
    exchange.opened = {
      resolve: opened,
      reject(error) {
        // a kept-alive socket the server closed (its idle timeout) just as it was reused: nothing of
        // the request reached it, so it is sent again once, on a fresh socket
        // (sent from a microtask, as a chained catch did: not from inside undici's error callback)
        if (!retried && !signal?.aborted && staleSocket(error)) queueMicrotask(() => UpstreamExchange.send(request, true, opened, failed));
        else failed(error);
      },
    };
    // no `once` option (an options object to read per request): a signal aborts once, and done() removes the listener
    if (signal) listenForAbort(signal, exchange.onAbort);
    const options: Dispatcher.DispatchOptions = { origin: url.origin, path: url.pathname + url.search, method: request.method as Dispatcher.HttpMethod, headers: request.headers, body: request.body };
    if (dispatcher) dispatcher.dispatch(options, exchange);
    else loadDispatcher().then((loaded) => loaded.dispatch(options, exchange), (error: unknown) => exchange.fail(error));
  }

  /** hands the body to `sink`: what arrived already at once, the rest as it comes */
  read(sink: BodySink): void {
    this.sink = sink;
    const held = this.held;
    this.held = undefined;
    if (held) for (const piece of held) sink.data(piece);
    if (this.outcome) this.finish(this.outcome.error);
  }

  /** names lower-cased; a repeated header's values as a list (made when first read: a redirect's, an error's) */
  get headers(): IncomingHttpHeaders {
    return (this.parsed ??= headersOf(this.raw));
  }

  /** closes the connection (the upstream stops); a body already whole is left as it is */
  abort(reason?: unknown): void {
    this.abortRequest?.(reason instanceof Error ? reason : new Error('aborted'));
  }

  /** lets go of the caller's signal; call it once the body is read or given up */
  done(): void {
    if (this.signal) unlistenForAbort(this.signal, this.onAbort);
  }

  private readonly onAbort = () => {
    const error = (this.abortReason = new ProviderAbortError(this.signal!.reason));
    // before the request went out, it is aborted as it does (onConnect)
    this.abortRequest?.(error);
    this.fail(error);
  };

  onConnect(abort: (error: Error) => void): void {
    this.abortRequest = abort;
    if (this.abortReason) abort(this.abortReason);
  }

  onHeaders(status: number, raw: Buffer[]): boolean {
    // 1xx answers (100 Continue, 103 Early Hints) come before the answer itself
    if (status < 200) return true;
    this.status = status;
    this.raw = raw;
    this.inflate = decompressor(contentEncodingOf(raw));
    if (this.inflate) {
      this.inflate.on('data', (part: Buffer) => this.deliver(this.text.write(part)));
      this.inflate.on('end', () => this.finish());
      this.inflate.on('error', (error) => this.fail(error));
    }
    const opened = this.opened;
    this.opened = undefined;
    opened?.resolve(this);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.inflate) this.inflate.write(chunk);
    else this.deliver(this.text.write(chunk));
    return true;
  }

  onComplete(): void {
    if (this.inflate) this.inflate.end();
    else this.finish();
  }

  onError(error: Error): void {
    this.fail(this.abortReason ?? error);
  }

  private deliver(piece: string): void {
    if (!piece) return;
    if (this.sink) this.sink.data(piece);
    else (this.held ??= []).push(piece);
  }

  private finish(error?: unknown): void {
    const sink = this.sink;
    if (!sink) {
      this.outcome ??= { error };
      return;
    }
    this.sink = undefined;
    if (error !== undefined) return sink.fail(error);
    this.deliver(this.text.end());
    sink.end();
  }

  private fail(error: unknown): void {
    const opened = this.opened;
    if (opened) {
      this.opened = undefined;
      this.done();
      return opened.reject(error instanceof ProviderAbortError ? error : new ProviderConnectionError(error));
    }
    this.inflate?.destroy();
    this.finish(error);
  }
}

/** a 2xx answer's body read whole (`UpstreamExchange.whole`): the exchange resolved with it, or the read's failure as the connection's */
class WholeBody implements BodySink {
  private text = '';

  constructor(
    private readonly exchange: UpstreamExchange,
    private readonly resolve: (exchange: UpstreamExchange) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  data(piece: string): void {
    this.text += piece;
  }

  end(): void {
    this.exchange.done();
    this.exchange.body = this.text;
    this.resolve(this.exchange);
  }

  fail(error: unknown): void {
    this.exchange.done();
    this.reject(error instanceof ProviderAbortError || error instanceof ProviderConnectionError ? error : new ProviderConnectionError(error));
  }
}

function staleSocket(error: unknown): boolean {
  if (!(error instanceof ProviderConnectionError)) return false;
  const cause = error.cause as { code?: string; socket?: { bytesRead?: number } } | undefined;
  if (!cause?.code || !STALE_SOCKET.has(cause.code)) return false;
  // undici says what the socket had read: a socket that had read nothing was not a reused one
  return cause.socket === undefined || (cause.socket.bytesRead ?? 0) > 0;
}

const NO_HEADERS: Buffer[] = [];
const CONTENT_ENCODING = 'content-encoding';

/** the answer's Content-Encoding from its raw list, its values joined as a list header's are; only names of its length are read as text */
function contentEncodingOf(raw: Buffer[]): string | undefined {
  let encoding: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length !== CONTENT_ENCODING.length || name.toString('latin1').toLowerCase() !== CONTENT_ENCODING) continue;
    const value = raw[i + 1]!.toString('latin1');
    encoding = encoding === undefined ? value : `${encoding},${value}`;
  }
  return encoding;
}

/** the raw list as undici's parseHeaders makes it: names lower-cased, a repeated header's values as a list (no prototype: any name is an entry) */
function headersOf(raw: Buffer[]): IncomingHttpHeaders {
  const headers = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const before = headers[name];
    if (before === undefined) headers[name] = value;
    else if (typeof before === 'string') headers[name] = [before, value];
    else before.push(value);
  }
  return headers;
}

const ZLIB_FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = { flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH };

/** a decoder for the answer's Content-Encoding, none without one; each piece is flushed as it comes (an SSE stream too) */
function decompressor(header: string | undefined) {
  if (header === undefined) return undefined;
  const encoding = header.trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip(ZLIB_FLUSH);
  if (encoding === 'deflate') return zlib.createInflate(ZLIB_FLUSH);
  if (encoding === 'br') return zlib.createBrotliDecompress(BROTLI_FLUSH);
  return undefined;
}
