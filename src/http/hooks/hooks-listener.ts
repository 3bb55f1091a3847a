import type { RequestListener } from 'node:http';
import { getPath } from 'hono/utils/url';
import type { HeraldConfig } from '../../config/schema.js';
import { hooksPrefix } from '../../config/hooks-path.js';
import type { nodeDoor } from '../exchange/node-door.js';
import { absoluteUrl } from '../request/request-url.js';
import { isSurfacePath } from '../server/surface-router.js';

/**
 * Sends the webhook surface to its Node door (`door`, node-door.ts), and hands every other request
 * to `rest` (hono's listener). A webhook call is the gateway's hottest path. A request whose
 * target does not plainly name the surface (no Host, `..`, a bad URL) goes to `rest`, which
 * decides it as before (its hono door runs the same pipeline).
 */
export function withHooksSurface(config: Pick<HeraldConfig, 'hooks'>, door: ReturnType<typeof nodeDoor>, rest: RequestListener): RequestListener {
  const prefix = hooksPrefix(config.hooks.path);
  if (!config.hooks.enabled || !prefix) return rest;
  return function hooksListener(incoming, outgoing) {
    const target = incoming.url ?? '';
    const next = target.charCodeAt(prefix.length);
    // `/hooks`, `/hooks/…` or `/hooks?…`, and nothing hono's URL parse could make something else
    const plain = target.startsWith(prefix) && (Number.isNaN(next) || next === 47 || next === 63) && !target.includes('\\') && !target.includes('/.');
    const url = plain ? absoluteUrl(incoming, target) : undefined;
    if (url === undefined) return rest(incoming, outgoing);
    const path = getPath({ url } as Request);
    if (!isSurfacePath(prefix, path)) return rest(incoming, outgoing);
    door(incoming, outgoing, { url, path });
  };
}
