import type { Context } from 'hono';
import { bearerToken } from '../bearer-token.js';
import { requestHeaders } from '../request-headers.js';

export type TokenForm = 'bearer' | 'header' | 'query';

/**
 * The hook token a request presents. The first form present decides (a wrong bearer is not
 * rescued by a right query token): Authorization, then x-gateway-token / x-openclaw-token,
 * then the deprecated ?token=.
 */
export function presentedHookToken(c: Context): { token: string; form: TokenForm } | undefined {
  const headers = requestHeaders(c);
  if (headers.authorization !== undefined) return { token: bearerToken(c) ?? '', form: 'bearer' };
  const header = headers['x-gateway-token'] ?? headers['x-openclaw-token'];
  if (header !== undefined) return { token: header, form: 'header' };
  // no query string, no ?token= (the common case: no URL parse for it)
  if (!c.req.url.includes('?')) return undefined;
  const query = c.req.query('token');
  if (query !== undefined) return { token: query, form: 'query' };
  return undefined;
}
