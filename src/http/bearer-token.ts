import type { Context } from 'hono';

/** The token of `Authorization: Bearer <token>`; undefined when the header is absent or not Bearer. */
export function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header && /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : undefined;
}
