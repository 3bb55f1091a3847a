import type { Context } from 'hono';
import { bearerToken } from '../bearer-token.js';

export type TokenForm = 'bearer' | 'header' | 'query';

/**
 * The hook token a request presents. The first form present decides (a wrong bearer is not
 * rescued by a right query token): Authorization, then x-gateway-token / x-openclaw-token,
 * then the deprecated ?token=.
 */
export function presentedHookToken(c: Context): { token: string; form: TokenForm } | undefined {
  if (c.req.header('authorization') !== undefined) return { token: bearerToken(c) ?? '', form: 'bearer' };
  const header = c.req.header('x-gateway-token') ?? c.req.header('x-openclaw-token');
  if (header !== undefined) return { token: header, form: 'header' };
  const query = c.req.query('token');
  if (query !== undefined) return { token: query, form: 'query' };
  return undefined;
}
