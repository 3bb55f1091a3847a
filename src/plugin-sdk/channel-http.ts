import { deadline } from '../time/deadline.js';
import { ChannelError } from './sdk.js';

/** the limit of one request when the caller gives none */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** a platform's own verdict on a failed answer, where its status code does not tell */
export interface Verdict {
  retryable: boolean;
  retryAfterMs?: number;
  /** the platform's code for it, when the error text is not the best name */
  reason?: string;
}

/** statuses a request may be repeated after: a timeout (408), a rate limit (429), a server error (5xx) */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** One request to a chat platform's HTTP API. */
export interface PlatformRequest {
  /** names the platform in error messages, e.g. "telegram" */
  platform: string;
  url: string;
  /** default POST */
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  /** sent as JSON */
  json?: unknown;
  /** sent as application/x-www-form-urlencoded */
  form?: Record<string, string>;
  /** sent as is (the caller sets content-type) */
  body?: string;
  /** aborts the request (shutdown); the time limit is `timeoutMs` */
  signal?: AbortSignal;
  /** the time limit of this one request, reading the answer included (default 30 s) */
  timeoutMs?: number;
  /**
   * values that must never reach an error message (tokens, passwords): a misconfigured base URL
   * can hit a server whose error page echoes the request path, and Telegram puts the token there
   */
  secrets?: string[];
  /** the platform's own error text in an error body */
  errorText?(body: any): string | undefined;
  /** the platform's code for a failure (Slack's `error`, Discord's `code`), when not its error text */
  reason?(body: any): string | undefined;
  /** a retry hint in the body, in milliseconds (Discord's and Telegram's `retry_after`) */
  retryAfterMs?(body: any): number | undefined;
  /**
   * classifies a failed answer (any non-2xx) where the status alone misleads: signal-cli answers
   * 400 for a daemon that is down, WhatsApp 400 for a rate limit. undefined keeps the default
   * (5xx, 408 and 429 retryable, other 4xx permanent).
   */
  classify?(status: number, body: any): Verdict | undefined;
}

export interface PlatformResponse {
  status: number;
  headers: Headers;
  /** the body parsed as JSON, or the raw text when it is not JSON */
  body: any;
}

const MAX_ERROR_TEXT = 300;

/**
 * Calls a platform (POST unless `method` says otherwise) and maps failures to ChannelError: network errors, timeouts, 5xx, 408 and 429
 * are transient (with the platform's Retry-After), any other 4xx is permanent and carries the
 * platform's error text and reason (its code where `reason` reads one). Messages never contain the URL: some platforms put the token in it.
 */
export async function callPlatform(request: PlatformRequest): Promise<PlatformResponse> {
  const headers: Record<string, string> = { ...request.headers };
  let body = request.body;
  if (request.json !== undefined) {
    // the charset spares Slack's `missing_charset` warning; every platform here reads UTF-8 JSON
    headers['content-type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(request.json);
  } else if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  }
  // one limit per request (GC-safe, see deadline.ts), covering the answer's body too
  const limit = deadline(request.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, request.signal);
  let response: Response;
  let text: string;
  try {
    try {
      response = await fetch(request.url, { method: request.method ?? 'POST', headers, body, signal: limit.signal });
    } catch (error) {
      const reason = scrub(networkReason(error), request.secrets);
      throw new ChannelError(`${request.platform}: ${reason}`, true, undefined, undefined, undefined, reason);
    }
    try {
      text = await response.text();
    } catch (error) {
      throw new ChannelError(`${request.platform}: ${scrub(networkReason(error), request.secrets)}`, true);
    }
  } finally {
    limit.clear();
  }
  const parsed = parseBody(text);
  if (response.ok) return { status: response.status, headers: response.headers, body: parsed };

  const detail = clip(
    scrub(safe(() => request.errorText?.(parsed)) ?? (typeof parsed === 'string' && parsed ? parsed : response.statusText || 'error'), request.secrets),
  );
  const message = `${request.platform} ${response.status}: ${detail}`;
  const verdict = safe(() => request.classify?.(response.status, parsed));
  const retryable = verdict?.retryable ?? isTransientStatus(response.status);
  const retryAfterMs = retryable
    ? (verdict?.retryAfterMs ?? safe(() => request.retryAfterMs?.(parsed)) ?? parseRetryAfter(response.headers.get('retry-after')))
    : undefined;
  const reason = verdict?.reason ?? safe(() => request.reason?.(parsed)) ?? detail;
  throw new ChannelError(message, retryable, response.status, retryAfterMs, parsed, clip(scrub(reason, request.secrets)));
}

/** `Retry-After`: delay-seconds or an HTTP date, in milliseconds from now */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** a seconds value from a body (may be fractional) in milliseconds */
export function secondsToMs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function networkReason(error: unknown): string {
  const err = error as { name?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return 'request timed out';
  if (err?.name === 'AbortError') return 'request aborted';
  // undici's "fetch failed" hides the reason in `cause`; its message never has the URL in it
  return `network error (${err?.cause?.code ?? err?.cause?.message ?? (error as Error)?.message ?? 'unknown'})`;
}

/** replaces each secret, raw or URL-encoded, with `***` */
export function scrub(text: string, secrets: string[] = []): string {
  let result = String(text);
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) result = result.split(form).join('***');
  }
  return result;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_ERROR_TEXT ? `${flat.slice(0, MAX_ERROR_TEXT - 1)}…` : flat;
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn() ?? undefined;
  } catch {
    return undefined;
  }
}

/** trims a trailing slash so `${base}/path` never doubles it */
/**
 * A recipient as one path segment of a platform URL: percent-encoded, and never `.` or `..`
 * (URL parsers resolve those, also as `%2e`, so `/channels/../messages` would become
 * `/messages`: another endpoint, called with the bot's credentials).
 */
export function pathSegment(value: string): string {
  if (value === '' || /^(\.|%2e){1,2}$/i.test(value)) throw new ChannelError(`recipient ${JSON.stringify(value)} is not a valid path segment`, false);
  return encodeURIComponent(value);
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
