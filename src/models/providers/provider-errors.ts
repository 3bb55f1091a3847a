import type { IncomingHttpHeaders } from 'node:http';

/**
 * The upstream answered with an error: an HTTP status of 400 or more, or an `error` object in
 * the middle of a stream (no status then). Shaped as the official `openai` client's `APIError`
 * (message `<status> <error.message>`, `status`, `headers`, `requestID`, `code`, `type`, `param`),
 * so logs (provider-failure.ts), fallbacks and the platform's 502 read it as before. `headers`
 * keeps the retry hints (`retry-after`, `x-ratelimit-*`).
 */
export class ProviderHttpError extends Error {
  readonly requestID?: string;
  readonly code?: unknown;
  readonly type?: unknown;
  readonly param?: unknown;

  constructor(
    readonly status: number | undefined,
    /** the upstream body's `error` object (its message may hold prompt text: never logged) */
    readonly error: unknown,
    text: string | undefined,
    readonly headers: IncomingHttpHeaders | undefined,
  ) {
    super(httpErrorMessage(status, error, text));
    this.name = 'ProviderHttpError';
    const requestId = headers?.['x-request-id'];
    if (typeof requestId === 'string') this.requestID = requestId;
    if (error && typeof error === 'object') {
      const fields = error as { code?: unknown; type?: unknown; param?: unknown };
      this.code = fields.code;
      this.type = fields.type;
      this.param = fields.param;
    }
  }
}

/** the official client's wording, so a failure reads the same in run records and logs */
function httpErrorMessage(status: number | undefined, error: unknown, text: string | undefined): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  const said = message ? (typeof message === 'string' ? message : JSON.stringify(message)) : error ? JSON.stringify(error) : text;
  if (status && said) return `${status} ${said}`;
  if (status) return `${status} status code (no body)`;
  return said || '(no status code or body)';
}

/** No answer: the connection failed or broke (the socket error is the cause: `ECONNREFUSED 127.0.0.1:11434`). */
export class ProviderConnectionError extends Error {
  constructor(cause: unknown) {
    super('Connection error.', { cause });
    this.name = 'ProviderConnectionError';
  }
}

/** The caller's signal aborted the call (its time limit, the client went away); the reason is the cause. */
export class ProviderAbortError extends Error {
  constructor(reason: unknown) {
    super('Request was aborted.', { cause: reason });
    // the name fetch and the official client give an abort, which callers test for
    this.name = 'AbortError';
  }
}
