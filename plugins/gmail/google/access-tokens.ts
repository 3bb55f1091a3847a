import { errorFrom, GoogleApiError, type AccessTokenSource } from './google-api.js';
import { fetchText, parseJsonText, type FetchedText } from './timed-fetch.js';

export interface OAuthCredentials {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

/**
 * Access tokens minted from the refresh token (grant_type=refresh_token) and cached until
 * shortly before they expire, or until Google refuses one (invalidate); concurrent callers share one refresh.
 */
export function accessTokenSource(tokenEndpoint: string, credentials: OAuthCredentials, now: () => number = Date.now): AccessTokenSource {
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function refresh(): Promise<string> {
    const step = 'get an access token from the refresh token';
    let response: FetchedText;
    try {
      response = await fetchText(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          refresh_token: credentials.refreshToken,
        }).toString(),
      });
    } catch (error) {
      throw new GoogleApiError(step, 0, undefined, `no answer from ${new URL(tokenEndpoint).origin}: ${(error as Error).message}`);
    }
    const body = parseJsonText(response.text) as { access_token?: string; expires_in?: number };
    if (!response.ok || typeof body.access_token !== 'string') throw errorFrom(step, response.status, body);
    // a minute of margin so a token never expires in flight
    const lifetimeMs = Math.max(0, (body.expires_in ?? 3600) * 1000 - 60_000);
    cached = { token: body.access_token, expiresAt: now() + lifetimeMs };
    return body.access_token;
  }

  const source: AccessTokenSource = async () => {
    if (cached && now() < cached.expiresAt) return cached.token;
    pending ??= refresh().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  // only the token that failed: a caller late with its 401 must not drop a fresh one another caller got
  source.invalidate = (token) => {
    if (cached?.token === token) cached = undefined;
  };
  return source;
}
