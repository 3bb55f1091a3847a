import type { BodyLimits } from '../request/read-body.js';
import type { Requester } from '../auth/requester.js';
import type { Produce, SseOptions } from './sse-response.js';
import type { RequestSurface } from '../request/request-surface.js';

/**
 * One request of a hot surface (the webhooks, chat completions) as its pipeline sees it,
 * whichever door it came through: Node's own request and response under `herald serve`
 * (node-door.ts), a hono context under `app.request()` and for targets the Node door leaves to
 * hono (hono-door.ts). The door opens it; the surface reads it and writes what it learns into it.
 */
export interface Exchange extends Requester {
  readonly requestId: string;
  readonly method: string;
  /** the path as routed (`/hooks/github`, `/v1/chat/completions`): the access log's, the metrics' and the error shape's */
  readonly path: string;
  /** the surface decided where the request entered (request-surface.ts): the metrics' label */
  readonly surface: RequestSurface;
  /** the URL as received (absolute, normalised), query included */
  readonly url: string;
  /** lower-cased names, repeats joined by ", "; no prototype; read-only */
  readonly headers: Readonly<Record<string, string>>;
  /** performance.now() when it arrived */
  readonly started: number;
  readBody(limits: BodyLimits): Promise<Uint8Array>;
  /** a header of whatever answer the request gets, an error's included */
  setHeader(name: string, value: string): void;
  /** `work` is cancelled when the client goes away before its answer went out */
  whenClientGone(work: Cancellable): void;
  /** the mapping that took the call, for the access log, the metrics and the receipt */
  mappingId?: string;
  /** body bytes actually read */
  bodyBytes?: number;
}

/** an answer whole: JSON the surface made, or a mapping's own response as the mapping said */
export interface WholeAnswer {
  status: number;
  body: string | Uint8Array | null;
  contentType?: string;
  headers?: Record<string, string>;
}

/** what a surface answers: whole, or the frames of an event stream (200) */
export type Answer = WholeAnswer | { stream: Produce; options: SseOptions };

/** work that a client's going away cancels (a chat turn) */
export interface Cancellable {
  cancel(reason: unknown): void;
}
