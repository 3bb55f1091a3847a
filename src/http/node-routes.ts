import type { RequestListener } from 'node:http';
import type { AppDeps } from './create-app.js';
import { nodeDoor } from './exchange/node-door.js';
import { withHooksSurface } from './hooks/hooks-listener.js';
import { TrustedProxies } from './request/trusted-proxies.js';
import { withChatCompletions } from './v1/chat/chat-listener.js';
import { CHAT_MAX_BODY_BYTES } from './v1/chat/chat-completions.js';

/**
 * The hot surfaces' Node doors (exchange/node-door.ts), the counterparts of the hono doors
 * createApp mounts: `herald serve` answers the webhooks and chat completions from Node's own
 * request and hands every other request to `rest` (hono's listener, gateway-server.ts).
 */
export function nodeRoutes(deps: Pick<AppDeps, 'config' | 'logger' | 'metrics' | 'surfaces'>): (rest: RequestListener) => RequestListener {
  const { config, surfaces } = deps;
  const doorDeps = { logger: deps.logger, metrics: deps.metrics?.http, proxies: new TrustedProxies(config.gateway.trustedProxies) };
  const hooksDoor = surfaces.hooks && nodeDoor(surfaces.hooks, { ...doorDeps, maxBodyBytes: config.hooks.maxBodyBytes });
  const chatDoor = surfaces.chat && nodeDoor(surfaces.chat, { ...doorDeps, maxBodyBytes: CHAT_MAX_BODY_BYTES });
  return (rest) => {
    const others = chatDoor ? withChatCompletions(chatDoor, rest) : rest;
    return hooksDoor ? withHooksSurface(config, hooksDoor, others) : others;
  };
}
