import type { Context, MiddlewareHandler } from 'hono';
import { requestHeaders } from './request-headers.js';
import { plainAddress, type TrustedProxies } from './trusted-proxies.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** the client's address: the socket peer, or what a trusted proxy says the client was */
    clientAddress?: string;
  }
}

/** the socket peer's address under @hono/node-server; `local` without one (app.request()) */
export const peerOf = (c: Context) => (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress ?? 'local';

/** Resolves the client address once per request (see TrustedProxies for when headers count). */
export function clientAddressOf(proxies: TrustedProxies): MiddlewareHandler {
  // not async: one promise less per request on every route
  return function clientAddressOf(c, next) {
    c.set('clientAddress', resolveClientAddress(proxies, peerOf(c), () => requestHeaders(c)));
    return next();
  };
}

/** the client's address behind `peer`: the proxy headers are read only from a trusted peer (with none configured, no header is read at all) */
export function resolveClientAddress(proxies: TrustedProxies, peer: string, headers: () => Readonly<Record<string, string>>): string {
  if (!proxies.trusts(peer)) return plainAddress(peer);
  const { forwarded, 'x-forwarded-for': xForwardedFor } = headers();
  return proxies.clientAddress(peer, { forwarded, xForwardedFor });
}

/** The client's address: X-Forwarded-For and Forwarded count only from a trusted proxy (`gateway.trustedProxies`). */
export function clientAddress(c: Context): string {
  return c.get('clientAddress') ?? plainAddress(peerOf(c));
}
