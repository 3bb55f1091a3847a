import type { Context } from 'hono';

/** The peer's address from the socket; never from X-Forwarded-For, which any client can write. */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}
