import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** statuses whose response has no body (a fetch Response refuses one for them) */
const NO_BODY = new Set([101, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

const abortError = (signal: AbortSignal) =>
  signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : new DOMException('This operation was aborted', 'AbortError');

/** fetch's own failure shape: a TypeError "fetch failed" with the network error as its cause */
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

function decoded(res: http.IncomingMessage): Readable {
  // fetch decodes what it asked for (accept-encoding), and so must this
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : encoding === 'deflate'
        ? zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : encoding === 'br'
          ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : undefined;
  if (!decoder) return res;
  res.on('error', (error) => decoder.destroy(error));
  return res.pipe(decoder);
}

/**
 * The `fetch` the OpenAI client calls, on Node's own http(s) module and its keep-alive agents.
 * Node's built-in fetch (undici) costs far more per call than the upstream round trip it makes
 * (a Request, a cloned body stream, an AbortSignal chain per call): it was the largest part of
 * herald's own time per chat completion. Anything this does not cover (a Request object, a
 * streamed or form body, a redirect) goes to the built-in fetch, so behaviour is unchanged.
 */
export const nodeFetch: typeof fetch = (input, init) => {
  const body = init?.body;
  const plain = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  if (!(typeof input === 'string' || input instanceof URL) || !plain) return fetch(input, init);
  const url = typeof input === 'string' ? new URL(input) : input;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fetch(input, init);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError(signal));

  return new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of new Headers(init?.headers)) headers[name] = value;
    headers['accept'] ??= '*/*';
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    if (body != null) headers['content-length'] ??= String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    let settled = false;
    let response: http.IncomingMessage | undefined;
    const onAbort = () => {
      const error = abortError(signal!);
      request.destroy(error);
      response?.destroy(error);
      if (!settled) (settled = true), reject(error);
    };
    const module = url.protocol === 'https:' ? https : http;
    const request = module.request(url, { method: init?.method ?? 'GET', headers }, (res) => {
      response = res;
      const status = res.statusCode ?? 0;
      if (REDIRECT.has(status) && res.headers.location && init?.redirect !== 'manual') {
        // the built-in fetch knows every redirect rule; redirects are rare enough to hand over
        res.resume();
        signal?.removeEventListener('abort', onAbort);
        settled = true;
        resolve(fetch(input, init));
        return;
      }
      const responseHeaders = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
      const empty = NO_BODY.has(status) || init?.method === 'HEAD';
      if (empty) res.resume();
      const stream = empty ? null : (Readable.toWeb(decoded(res)) as ReadableStream<Uint8Array>);
      res.once('close', () => signal?.removeEventListener('abort', onAbort));
      settled = true;
      try {
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
      } catch (error) {
        res.destroy();
        reject(fetchFailed(error));
      }
    });
    request.once('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      if (!settled) (settled = true), reject(signal?.aborted ? abortError(signal) : fetchFailed(error));
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body ?? undefined);
  });
};
