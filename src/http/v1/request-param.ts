import type { z } from 'zod';
import { HeraldError } from '../../errors.js';

/** a zod issue path as OpenAI names a param: `messages.0.content` -> `messages[0].content` */
export const paramOf = (path: PropertyKey[]) =>
  path.reduce<string>((p, k) => (typeof k === 'number' ? `${p}[${k}]` : p ? `${p}.${String(k)}` : String(k)), '');

/** `body` parsed by `schema`, or 400 naming the first field it refuses, as OpenAI names a param */
export function parseFields<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = paramOf(issue.path);
  throw new HeraldError('HERALD_INVALID_FIELD', `${param || 'body'}: ${issue.message}`, { param: param || undefined });
}
