import { fetchText, parseJsonText, type FetchedText } from './timed-fetch.js';

/**
 * Plain-HTTP access to Google's REST APIs (global fetch): one request helper that adds the
 * access token and turns Google's `{error:{code,message,status}}` into a typed error.
 */
export class GoogleApiError extends Error {
  constructor(
    /** what herald was doing, e.g. "create topic projects/p/topics/t" */
    readonly step: string,
    /** HTTP status; 0 when the request never got an answer */
    readonly status: number,
    /** Google's status word, e.g. PERMISSION_DENIED */
    readonly reason: string | undefined,
    message: string,
  ) {
    super(`${step}: ${status ? `${status}${reason ? ` ${reason}` : ''}: ` : ''}${message}`);
    this.name = 'GoogleApiError';
  }
}

export interface AccessTokenSource {
  (): Promise<string>;
  /** forgets `token` when it is still the cached one (Google answered 401: revoked or expired early) */
  invalidate?(token: string): void;
}

export interface GoogleRequest {
  step: string;
  method?: string;
  url: string;
  body?: unknown;
  /** statuses answered with their body instead of an error (e.g. 409 for "already exists") */
  accept?: number[];
  timeoutMs?: number;
  /** aborts the call (the watcher stopping) */
  signal?: AbortSignal;
}

/** One call with a cached access token; a 401 drops that token and the call is made once more with a fresh one. */
export async function googleRequest<T = Record<string, unknown>>(token: AccessTokenSource, request: GoogleRequest): Promise<{ status: number; body: T }> {
  let accessToken = await token();
  let response = await send(request, accessToken);
  if (response.status === 401 && token.invalidate) {
    token.invalidate(accessToken);
    accessToken = await token();
    response = await send(request, accessToken);
  }
  const body = parseJsonText(response.text);
  if (response.ok || request.accept?.includes(response.status)) return { status: response.status, body: body as T };
  throw errorFrom(request.step, response.status, body);
}

async function send(request: GoogleRequest, accessToken: string): Promise<FetchedText> {
  try {
    return await fetchText(
      request.url,
      {
        method: request.method ?? 'GET',
        headers: { authorization: `Bearer ${accessToken}`, ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
        signal: request.signal,
      },
      request.timeoutMs ?? 30_000,
    );
  } catch (error) {
    throw new GoogleApiError(request.step, 0, undefined, `no answer from ${new URL(request.url).origin}: ${(error as Error).message}`);
  }
}

/** Google answers `{error:{code,message,status}}` (APIs) or `{error, error_description}` (OAuth). */
export function errorFrom(step: string, status: number, body: unknown): GoogleApiError {
  const error = (body as { error?: unknown; error_description?: string })?.error;
  if (error && typeof error === 'object') {
    const e = error as { message?: string; status?: string };
    return new GoogleApiError(step, status, e.status, e.message ?? 'request failed');
  }
  if (typeof error === 'string') {
    return new GoogleApiError(step, status, error, (body as { error_description?: string }).error_description ?? error);
  }
  return new GoogleApiError(step, status, undefined, 'request failed');
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
