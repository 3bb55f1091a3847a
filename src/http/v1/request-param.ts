import type { Context } from 'hono';
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

/**
 * A declared route's query or path parameters (`c.req.query()`, `c.req.param()`), parsed by the
 * schema its `createRoute` declaration gives for the document: 400 naming the first parameter it
 * refuses, in the schema's own words (which say the parameter's name, as OpenAI's messages do).
 */
export function parseParams<T extends z.ZodType>(schema: T, given: Record<string, string>): z.output<T> {
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new HeraldError('HERALD_INVALID_FIELD', issue.message, { param: paramOf(issue.path) || undefined });
}

/** the query of a request to `route`, parsed by the schema its declaration documents */
export const declaredQuery = <S extends z.ZodType>(route: { request: { query: S } }, c: Context): z.output<S> => parseParams(route.request.query, c.req.query());

/** the path parameters of a request to `route`, parsed by the schema its declaration documents */
export const declaredParams = <S extends z.ZodType>(route: { request: { params: S } }, c: Context): z.output<S> =>
  parseParams(route.request.params, c.req.param() as Record<string, string>);
