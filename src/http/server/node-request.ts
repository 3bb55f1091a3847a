import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveClientAddress } from '../client-address.js';
import { readIncoming, refuseDeclaredTooLarge, type BodyLimits } from '../read-body.js';
import { requestIdFrom } from '../request-context.js';
import { headersOfRaw } from '../request-headers.js';
import type { TrustedProxies } from '../trusted-proxies.js';

/**
 * A request answered from Node's own request and response (the webhook surface, chat
 * completions), opened as the app's requestContext middleware opens one: when it started, its
 * headers, its id (the caller's X-Request-Id when sane), echoed on the response.
 */
export function openNodeRequest(incoming: IncomingMessage, outgoing: ServerResponse): { started: number; headers: Record<string, string>; requestId: string } {
  const started = performance.now();
  const headers = headersOfRaw(incoming.rawHeaders);
  const requestId = requestIdFrom(headers['x-request-id']);
  outgoing.setHeader('X-Request-Id', requestId);
  return { started, headers, requestId };
}

/** the client's address: the peer's, or what a trusted proxy says it forwarded for */
export function nodeClientAddress(proxies: TrustedProxies, incoming: IncomingMessage, headers: Readonly<Record<string, string>>): string {
  return resolveClientAddress(proxies, incoming.socket?.remoteAddress ?? 'local', () => headers);
}

/** the body under `limits`; a declared length over them is refused before anything is read */
export function readNodeBody(incoming: IncomingMessage, headers: Readonly<Record<string, string>>, limits: BodyLimits): Promise<Uint8Array> {
  refuseDeclaredTooLarge(headers['content-length'], limits);
  return readIncoming(incoming, limits);
}
