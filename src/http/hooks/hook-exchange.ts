import type { BodyLimits } from '../read-body.js';
import type { Requester } from '../requester.js';
import type { ReceiptNotes } from './receipt-middleware.js';

/**
 * One request to the webhook surface as its route sees it, whatever server carries it: Node's
 * own request and response under `herald serve` (hooks-listener.ts), a hono context under
 * `app.request()` (hooks-routes.ts). The route reads it, writes what it learns into it, and
 * returns a `HookAnswer`.
 */
export interface HookExchange extends Requester {
  readonly method: string;
  /** the path under the surface, without its slashes (`agent`, `github/push`) */
  readonly path: string;
  /** the URL as received (absolute, normalised), query included */
  readonly url: string;
  /** lower-cased names, repeats joined by ", "; no prototype; read-only */
  readonly headers: Readonly<Record<string, string>>;
  readBody(limits: BodyLimits): Promise<Uint8Array>;
  /** the request's receipt, filled in field by field as the route learns (undefined: no receipts) */
  readonly notes: ReceiptNotes | undefined;
  /** the mapping that took the call, for the access log, the metrics and the receipt */
  mappingId?: string;
  /** body bytes actually read */
  bodyBytes?: number;
  /** a header of whatever answer the request gets, an error's included */
  setHeader(name: string, value: string): void;
}

/** what the route answers: JSON it made, or a mapping's own response as the mapping said */
export interface HookAnswer {
  status: number;
  body: string | Uint8Array | null;
  contentType?: string;
  headers?: Record<string, string>;
}
