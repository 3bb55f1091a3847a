import type { RequestListener } from 'node:http';
import type { nodeDoor } from '../../exchange/node-door.js';
import { absoluteUrl } from '../../request/request-url.js';

/** the route; its hono door is mounted at the same path (create-app.ts) */
export const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

/**
 * Sends `POST /v1/chat/completions` to its Node door (`door`, node-door.ts), and hands every other
 * request to `rest`. A chat completion is the platform API's hot path. A target that is not the
 * path itself (a trailing slash, an encoding) or a request without a Host goes to `rest`, which
 * decides it as before (its hono door runs the same pipeline).
 */
export function withChatCompletions(door: ReturnType<typeof nodeDoor>, rest: RequestListener): RequestListener {
  const path = CHAT_COMPLETIONS_PATH;
  return function chatListener(incoming, outgoing) {
    const target = incoming.url ?? '';
    if (incoming.method !== 'POST' || !target.startsWith(path) || (target.length > path.length && target.charCodeAt(path.length) !== 63)) return rest(incoming, outgoing);
    const url = absoluteUrl(incoming, target);
    if (url === undefined) return rest(incoming, outgoing);
    door(incoming, outgoing, { url, path });
  };
}
