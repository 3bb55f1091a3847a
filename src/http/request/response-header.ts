import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/**
 * Sets a response header on Node's response itself when there is one, which merges it into
 * whatever response the app makes (a JSON answer, an error, a stream written to Node's response
 * directly); through `c.header()` it would cost a fetch `Headers` object per request and the
 * adapter's conversion of it. Without a Node response (`app.request()`), through hono.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) outgoing.setHeader(name, value);
  else c.header(name, value);
}
