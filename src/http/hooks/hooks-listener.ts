import type { RequestListener } from 'node:http';
import { getPath } from 'hono/utils/url';
import type { HeraldConfig } from '../../config/schema.js';
import type { nodeDoor } from '../exchange/node-door.js';
import { absoluteUrl } from '../request/request-url.js';
import { activeHooksPrefix, carriedSurface } from '../request/request-surface.js';

/**
 * Sends the webhook surface to its Node door (`door`, node-door.ts), and hands every other request
 * to `rest` (hono's listener). A webhook call is the gateway's hottest path. A request whose
 * target does not plainly name the surface (no Host, `..`, a bad URL) goes to `rest`, which
 * decides it as before (its hono door runs the same pipeline). Whether it is for the surface at all
 * the server decided as it entered (request-surface.ts).
 */
export function withHooksSurface(config: Pick<HeraldConfig, 'hooks'>, door: ReturnType<typeof nodeDoor>, rest: RequestListener): RequestListener {
  if (!activeHooksPrefix(config)) return rest;
  return function hooksListener(incoming, outgoing) {
    if (carriedSurface(incoming) !== 'hooks') return rest(incoming, outgoing);
    const target = incoming.url ?? '';
    // nothing hono's URL parse could make something else
    const plain = !target.includes('\\') && !target.includes('/.');
    const url = plain ? absoluteUrl(incoming, target) : undefined;
    if (url === undefined) return rest(incoming, outgoing);
    door(incoming, outgoing, { url, path: getPath({ url } as Request) });
  };
}
