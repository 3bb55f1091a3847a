import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

const HEADERS = Symbol('herald.requestHeaders');

type Holder = { [HEADERS]?: Record<string, string> };

/**
 * The request's headers as one record of lower-cased names (repeats joined by ", ", as the
 * fetch `Headers` joins them), built once per request from Node's raw header list. Reading a
 * header through `c.req.header()` under @hono/node-server builds a fetch `Headers` object first
 * (a copy of every header through undici's validation): a few microseconds per request that the
 * webhook path, which reads half a dozen headers, need not pay. Without a Node request (tests
 * through `app.request()`) the fetch request's headers are read instead.
 *
 * The record has no prototype (a header named `__proto__` or `constructor` is a plain entry) and
 * is shared by every reader of the request: treat it as read-only.
 */
export function requestHeaders(c: Context): Readonly<Record<string, string>> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const holder = (incoming?.rawHeaders ? incoming : c.req.raw) as Holder;
  let headers = holder[HEADERS];
  if (headers) return headers;
  if (incoming?.rawHeaders) headers = headersOfRaw(incoming.rawHeaders);
  else {
    headers = Object.create(null) as Record<string, string>;
    c.req.raw.headers.forEach((value, name) => {
      headers![name] = value;
    });
  }
  holder[HEADERS] = headers;
  return headers;
}

/** Node's raw header list as one record, as `requestHeaders` describes it */
export function headersOfRaw(raw: readonly string[]): Record<string, string> {
  const headers = Object.create(null) as Record<string, string>;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    // HTTP/2 pseudo-headers (:path, :authority) are not headers
    if (name.charCodeAt(0) === 58) continue;
    const value = raw[i + 1]!;
    const before = headers[name];
    headers[name] = before === undefined ? value : `${before}, ${value}`;
  }
  return headers;
}

/** one header of the request, by its lower-cased name */
export function requestHeader(c: Context, lowerCaseName: string): string | undefined {
  return requestHeaders(c)[lowerCaseName];
}
