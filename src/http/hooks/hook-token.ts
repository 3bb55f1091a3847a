import { getQueryParam } from 'hono/utils/url';
import { bearerOf } from '../auth/bearer-token.js';

export type TokenForm = 'bearer' | 'header' | 'query';

/**
 * The hook token a request presents. The first form present decides (a wrong bearer is not
 * rescued by a right query token): Authorization, then x-gateway-token / x-openclaw-token,
 * then the deprecated ?token=.
 */
export function presentedHookToken(headers: Readonly<Record<string, string>>, url: string): { token: string; form: TokenForm } | undefined {
  if (headers.authorization !== undefined) return { token: bearerOf(headers.authorization) ?? '', form: 'bearer' };
  const header = headers['x-gateway-token'] ?? headers['x-openclaw-token'];
  if (header !== undefined) return { token: header, form: 'header' };
  // no query string, no ?token= (the common case: no URL parse for it)
  if (!url.includes('?')) return undefined;
  const query = getQueryParam(url, 'token') as string | undefined;
  if (query !== undefined) return { token: query, form: 'query' };
  return undefined;
}
