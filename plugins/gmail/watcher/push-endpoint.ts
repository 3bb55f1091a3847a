import http from 'node:http';
import type { Logger } from 'pino';
import { safeEqual } from '../../../src/plugin-sdk/sdk.js';
import { isHistoryId } from './history-id.js';
import { PushAuthError, type PushOidcVerifier } from './push-oidc.js';

export interface GmailNotification {
  emailAddress: string;
  historyId: string;
}

export interface PushEndpointOptions {
  bind: string;
  port: number;
  path: string;
  /** the ?token= each push must carry; undefined when only OIDC authenticates */
  pushToken?: string;
  /** verifies Pub/Sub's OIDC push token when configured */
  oidc?: PushOidcVerifier;
  logger: Logger;
  /** must resolve only once the notification is durably recorded: the 2xx tells Pub/Sub to stop redelivering */
  record(notification: GmailNotification): Promise<void>;
}

const MAX_PUSH_BYTES = 1024 * 1024;

/**
 * Parses a Pub/Sub push: the wrapped envelope `{message:{data: base64 of {emailAddress, historyId},
 * messageId, publishTime, attributes}, subscription}`, or, from a subscription with payload
 * unwrapping (`pushConfig.noWrapper`), the notification itself as the body.
 */
export function parsePushEnvelope(text: string): GmailNotification | undefined {
  try {
    const envelope = JSON.parse(text) as { message?: { data?: unknown }; emailAddress?: unknown; historyId?: unknown };
    let inner: { emailAddress?: unknown; historyId?: unknown } | undefined;
    if (envelope && typeof envelope === 'object' && envelope.message === undefined && 'emailAddress' in envelope) inner = envelope;
    else {
      const data = envelope?.message?.data;
      if (typeof data !== 'string' || !data) return undefined;
      inner = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { emailAddress?: unknown; historyId?: unknown };
    }
    if (!inner || typeof inner.emailAddress !== 'string' || !isHistoryId(inner.historyId)) return undefined;
    return { emailAddress: inner.emailAddress, historyId: String(inner.historyId) };
  } catch {
    return undefined;
  }
}

/** The HTTP endpoint Pub/Sub pushes Gmail notifications to. */
export async function startPushEndpoint(options: PushEndpointOptions): Promise<http.Server> {
  const { logger } = options;
  const server = http.createServer(async (req, res) => {
    const reply = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    try {
      const url = new URL(req.url ?? '/', 'http://push.local');
      if (url.pathname !== options.path) return reply(404, { ok: false, error: 'not found' });
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return reply(405, { ok: false, error: 'method not allowed' });
      }
      if (options.pushToken !== undefined && !safeEqual(url.searchParams.get('token') ?? '', options.pushToken)) {
        logger.warn({ address: req.socket.remoteAddress }, 'gmail push refused: wrong or missing push token');
        req.resume();
        return reply(401, { ok: false, error: 'unauthorized' });
      }
      if (options.oidc) {
        try {
          await options.oidc.verify(req.headers.authorization);
        } catch (error) {
          // a bad token is the sender's fault (401); Google's keys out of reach is ours (503, Pub/Sub redelivers)
          const refused = error instanceof PushAuthError;
          logger.warn({ address: req.socket.remoteAddress, reason: (error as Error).message }, refused ? 'gmail push refused: OIDC token not valid' : 'gmail push: Google\'s signing keys unavailable');
          req.resume();
          return refused ? reply(401, { ok: false, error: 'unauthorized' }) : reply(503, { ok: false, error: 'cannot verify the push now' });
        }
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        if (size > MAX_PUSH_BYTES) return reply(413, { ok: false, error: 'payload too large' });
        chunks.push(chunk as Buffer);
      }
      const notification = parsePushEnvelope(Buffer.concat(chunks).toString('utf8'));
      if (!notification) {
        logger.warn({ size }, 'gmail push refused: not a Pub/Sub envelope with {emailAddress, historyId}');
        return reply(400, { ok: false, error: 'malformed push' });
      }
      await options.record(notification);
      return reply(204);
    } catch (err) {
      // not recorded: a 5xx makes Pub/Sub deliver it again
      logger.error({ err }, 'gmail push could not be recorded');
      if (!res.headersSent) reply(500, { ok: false, error: 'internal error' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new Error(`hooks.gmail.serve.port: ${options.bind}:${options.port} is already in use (stop what listens there or choose another port)`));
      } else {
        reject(new Error(`hooks.gmail.serve: cannot listen on ${options.bind}:${options.port}: ${error.message}`));
      }
    });
    server.listen(options.port, options.bind, () => resolve());
  });
  return server;
}
