import type { ApiPrincipal } from '../../platform/api-keys.js';
import type { BodyLimits } from '../read-body.js';
import type { Requester } from '../requester.js';
import type { Produce, SseOptions } from './sse-response.js';

/**
 * One admitted call of `POST /v1/chat/completions` as its route sees it, whatever server carries
 * it: Node's own request and response under `herald serve` (chat-listener.ts), a hono context
 * under `app.request()` (chat-completions.ts). The route reads it, writes what it learns into it,
 * and returns a `ChatAnswer`.
 */
export interface ChatExchange extends Requester {
  /** the API key that called, admitted by the platform gate */
  readonly principal: ApiPrincipal;
  readBody(limits: BodyLimits): Promise<Uint8Array>;
  /** body bytes actually read, for the access log */
  bodyBytes?: number;
  /** the request's origin (`http://host:port`), for the knowledge annotations' URLs */
  origin(): string;
  /** a header of whatever answer the request gets */
  setHeader(name: string, value: string): void;
  /** `cancel` is called when the client goes away before its answer went out */
  whenClientGone(cancel: (reason: unknown) => void): void;
}

/** what the route answers: a completion as JSON (200), or the chunks of a streamed one */
export type ChatAnswer = { json: Record<string, unknown> } | { stream: Produce; options: SseOptions };
