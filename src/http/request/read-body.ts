import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { HeraldError } from '../../errors.js';
import { requestHeader } from './request-headers.js';

export interface BodyLimits {
  maxBytes: number;
  /** the config key that sets `maxBytes` (`hooks.maxBodyBytes`), named with it in a 413 */
  key?: string;
  /** a body that sends nothing for this long is abandoned with 408 */
  idleTimeoutMs: number;
}

/**
 * Reads a request body under a byte limit that holds for the declared length and for what
 * actually streams (chunked bodies lie by omission), with an idle timeout for stalled senders.
 */
export async function readBody(c: Context, limits: BodyLimits): Promise<Uint8Array> {
  const declared = requestHeader(c, 'content-length');
  refuseDeclaredTooLarge(declared, limits);
  const incoming = unreadIncoming(c);
  if (incoming) return readIncoming(incoming, limits);
  const body = c.req.raw.body;
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await withIdleTimeout(reader.read(), limits.idleTimeoutMs);
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) throw tooLarge(limits);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error instanceof HeraldError ? error : clientClosed(error);
  }
  return Buffer.concat(chunks, size);
}

/** a body whose Content-Length is over the limit is refused before a byte is read */
export function refuseDeclaredTooLarge(declared: string | undefined, limits: BodyLimits): void {
  if (declared !== undefined && Number(declared) > limits.maxBytes) throw tooLarge(limits);
}

// the unread rest of the body must not be parsed as the next request on a kept-alive socket
const CLOSE = { Connection: 'close' };
/**
 * names the limit, and its config key when it has one, so the operator knows what to raise; the
 * same words whether the length was declared or counted while streaming
 */
const tooLarge = (limits: BodyLimits) =>
  new HeraldError('HERALD_PAYLOAD_TOO_LARGE', limits.key ? `the body is larger than ${limits.key} (${limits.maxBytes} bytes)` : undefined, { headers: CLOSE });
/**
 * The client went away mid-body (ECONNRESET, aborted): its fault, not herald's, and nobody is
 * left to read the answer. 499 (nginx's "client closed request") keeps it out of the 5xx counts;
 * the error handler logs it at debug.
 */
const clientClosed = (cause?: unknown) => new HeraldError('HERALD_CLIENT_CLOSED', undefined, { headers: CLOSE, cause });

async function withIdleTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HeraldError('HERALD_BODY_TIMEOUT', undefined, { headers: CLOSE })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Under @hono/node-server the body can be read from Node's own request stream. Touching
 * `c.req.raw.body` instead makes the adapter build a full fetch Request, an AbortController
 * and a web stream per request, a large share of the webhook path's own work.
 * Only when nobody has started reading it (`readableFlowing === null`).
 */
function unreadIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && typeof incoming.on === 'function' && incoming.readableFlowing === null && !incoming.readableEnded ? incoming : undefined;
}

/** Node's request body under the limits (its declared length already checked) */
export function readIncoming(incoming: IncomingMessage, limits: BodyLimits): Promise<Uint8Array> {
  // gone before the read began (while hono's adapter loaded, say): no event would come
  if (incoming.destroyed) return Promise.reject(clientClosed());
  // all of a declared body already in the request's buffer (a small body comes with its headers,
  // and the framework's awaits let it in): taken at once, without flowing mode's ticks and events
  if (buffered(incoming, limits)) return Promise.resolve((incoming.read() as Buffer | null) ?? Buffer.alloc(0));
  // asked from the request event itself, before Node's parser pushed the body that came in the
  // same packet as the headers: it is there once the event returns, so looked for again after it
  // (a microtask) before the read falls back to flowing mode (a timer, four listeners, ticks)
  return new Promise((resolve, reject) => {
    queueMicrotask(() => {
      if (buffered(incoming, limits)) resolve((incoming.read() as Buffer | null) ?? Buffer.alloc(0));
      else flowingRead(incoming, limits).then(resolve, reject);
    });
  });
}

/** all of a declared body in the request's buffer, nothing read yet, within the limit */
function buffered(incoming: IncomingMessage, limits: BodyLimits): boolean {
  const declared = incoming.headers['content-length'];
  return declared !== undefined && incoming.readableFlowing === null && incoming.readableLength === Number(declared) && incoming.readableLength <= limits.maxBytes;
}

/** the body as it streams in, under the limits */
function flowingRead(incoming: IncomingMessage, limits: BodyLimits): Promise<Uint8Array> {
  // gone while the read waited for its microtask: no event would come
  if (incoming.destroyed) return Promise.reject(clientClosed());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const idle = setTimeout(() => fail(new HeraldError('HERALD_BODY_TIMEOUT', undefined, { headers: CLOSE })), limits.idleTimeoutMs);
    const onData = (chunk: Buffer) => {
      idle.refresh();
      size += chunk.byteLength;
      if (size > limits.maxBytes) return fail(tooLarge(limits));
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // a webhook body nearly always arrives in one chunk: that chunk is the body, no copy
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onClose = () => fail(clientClosed());
    const onError = (error: Error) => fail(clientClosed(error));
    const cleanup = () => {
      clearTimeout(idle);
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    // the rest of an abandoned body is not read: the response carries Connection: close
    function fail(error: Error) {
      cleanup();
      incoming.pause();
      reject(error);
    }
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** JSON of a webhook body: empty is `{}`; anything unparsable is a 400. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  // a view of the same bytes, not a copy (Buffer.from(Uint8Array) copies)
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('utf8').trim();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HeraldError('HERALD_INVALID_JSON', 'invalid JSON body');
  }
}
