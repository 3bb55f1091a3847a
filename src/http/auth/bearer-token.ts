import type { Context } from 'hono';
import { requestHeader } from '../request/request-headers.js';

/** The token of `Authorization: Bearer <token>`; undefined when the header is absent or not Bearer. */
export function bearerToken(c: Context): string | undefined {
  return bearerOf(requestHeader(c, 'authorization'));
}

/** the token of an Authorization header's value, when it is a Bearer */
export function bearerOf(header: string | undefined): string | undefined {
  const match = header && /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : undefined;
}
