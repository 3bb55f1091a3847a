import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { hooksPrefix } from '../../config/hooks-path.js';

/** which part of the gateway a request is for: the span's `herald.surface`, the metrics' label, the Node doors' choice */
export type RequestSurface = 'hooks' | 'v1' | 'admin' | 'console' | 'other';

/** the webhook surface's prefix, or the empty string while the surface is off */
export function activeHooksPrefix(config: { hooks: { enabled: boolean; path: string } }): string {
  return config.hooks.enabled ? hooksPrefix(config.hooks.path) : '';
}

/**
 * The one rule of which surface a path is on (`hooksPrefix`: activeHooksPrefix's). Decided once
 * where the request enters: Node's server (gateway-server.ts) carries it on Node's request,
 * hono reads it from there (requestSurface), and decides it itself only when it is the entry
 * (`app.request()`, a fetch-based server).
 */
export function surfaceOfPath(path: string, hooksPrefix: string): RequestSurface {
  if (hooksPrefix && isUnder(hooksPrefix, path)) return 'hooks';
  if (isUnder('/v1', path)) return 'v1';
  if (isUnder('/admin', path)) return 'admin';
  if (isUnder('/console', path)) return 'console';
  return 'other';
}

/** `path` is `prefix` or under it (`/hooks`, `/hooks/…`; not `/hooksmith`) */
export function isUnder(prefix: string, path: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47);
}

const SURFACE = Symbol('herald.surface');

type Carrying = IncomingMessage & { [SURFACE]?: RequestSurface };

/** decides `incoming`'s surface as it enters Node's server and carries it on the request */
export function enterSurface(incoming: IncomingMessage, path: string, hooksPrefix: string): RequestSurface {
  return ((incoming as Carrying)[SURFACE] = surfaceOfPath(path, hooksPrefix));
}

/** the surface Node's server decided for `incoming` (every request of gateway-server.ts has one) */
export function carriedSurface(incoming: IncomingMessage): RequestSurface {
  return (incoming as Carrying)[SURFACE] ?? 'other';
}

/** a hono request's surface: the one Node's server carried, or decided here when hono is where it entered */
export function requestSurface(c: Context, hooksPrefix: string): RequestSurface {
  const incoming = (c.env as { incoming?: Carrying } | undefined)?.incoming;
  return incoming?.[SURFACE] ?? surfaceOfPath(c.req.path, hooksPrefix);
}
