import { isIP } from 'node:net';
import type { Context } from 'hono';
import { inject, type DispatchFunc } from 'light-my-request';
import { clientAddress } from '../../request/client-address.js';
import { readBody } from '../../request/read-body.js';

/** OAuth requests are small forms and JSON documents */
const MAX_BODY_BYTES = 64 * 1024;
const BODY_IDLE_MS = 30_000;

/** the body of an OAuth request, read once (none for GET and HEAD) */
export const oauthBody = (c: Context): Promise<Uint8Array | undefined> =>
  c.req.method === 'GET' || c.req.method === 'HEAD' ? Promise.resolve(undefined) : readBody(c, { maxBytes: MAX_BODY_BYTES, idleTimeoutMs: BODY_IDLE_MS });

/**
 * Answers a hono request with a Node request listener (the MCP SDK's express handlers of the
 * authorization server), through light-my-request's in-process injection: the same request
 * line, headers, body and client address, the listener's whole answer returned as a Response.
 * No socket is opened, so `app.request()` and `herald serve` answer alike.
 */
export async function answerWith(listener: DispatchFunc, c: Context, body?: Uint8Array): Promise<Response> {
  const url = new URL(c.req.url);
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const answer = await inject(listener, {
    method: c.req.method as 'GET',
    url: `${url.pathname}${url.search}`,
    headers,
    ...(body && { payload: Buffer.from(body.buffer, body.byteOffset, body.byteLength) }),
    // the SDK's rate limits count by address; a request without a socket (app.request()) is loopback's
    remoteAddress: isIP(clientAddress(c)) ? clientAddress(c) : '127.0.0.1',
  });
  const out = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || name === 'transfer-encoding' || name === 'connection') continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, String(one));
  }
  const empty = answer.statusCode === 204 || answer.statusCode === 304 || c.req.method === 'HEAD';
  return new Response(empty ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers: out });
}
