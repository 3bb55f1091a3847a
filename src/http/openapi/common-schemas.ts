import { z } from 'zod';
import { errorCatalog, type ErrorCode } from '../../errors.js';

/** The webhook and admin error body (the one error mapper, `http/error-handler.ts`). */
export const okFalseSchema = z.object({
  ok: z.literal(false),
  error: z.string().describe('What went wrong; a field fault starts with the field name.'),
  details: z.unknown().optional().describe('Schema errors of a mapped hook, when its `schema` refused the payload.'),
});

/** the catalog's codes, as an operator's error body names them */
export const errorCodes = Object.keys(errorCatalog) as [ErrorCode, ...ErrorCode[]];

/** The error body under /admin and /console: the webhook shape and the catalog's code. */
export const operatorErrorSchema = okFalseSchema.extend({
  code: z.enum(errorCodes).describe('The error catalog\'s code (docs/errors.md): what a client branches on.'),
});

/** OpenAI's error body, used under /v1. */
export const openaiErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().describe('invalid_request_error, authentication_error, permission_error, not_found_error, rate_limit_error, server_error'),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});

export const okSchema = z.object({ ok: z.literal(true) });

/** OpenAI's list object (`http/v1/list-page.ts`) of the items given */
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), first_id: z.string().nullable(), last_id: z.string().nullable(), has_more: z.boolean() });

const LIMIT = 'limit must be an integer from 1 to 100';

/** OpenAI's cursor pagination (`http/v1/list-page.ts`): what documents the query parses it (its messages are the 400's) */
export const listQuerySchema = z.object({
  limit: z.coerce.number({ error: LIMIT }).int({ error: LIMIT }).min(1, { error: LIMIT }).max(100, { error: LIMIT }).optional().describe('Page size, 1 to 100 (default 20).'),
  order: z.enum(['asc', 'desc'], { error: 'order must be "asc" or "desc"' }).optional().describe('asc (default) or desc.'),
  after: z.string().optional().describe('An id of the list: the page starts after it.'),
  before: z.string().optional().describe('An id of the list: the page ends before it.'),
});

export const idParams = z.object({ id: z.string() });

/** what each /v1 error status means on every route; a route group names its own 404 (and any other) */
const openaiErrorText: Record<number, string> = {
  400: 'Invalid request (the field is named in `param`).',
  401: 'Missing or wrong API key.',
  413: 'Upload over platform.maxUploadBytes.',
  415: 'Not multipart/form-data, or a file type herald cannot read.',
  429: 'Rate limit of the key (`Retry-After`).',
  502: 'The model provider failed.',
};

/** a JSON answer as a `createRoute` declaration lists it */
export const jsonAnswer = <T extends z.ZodType>(schema: T, description: string, contentType = 'application/json') => ({ description, content: { [contentType]: { schema } } });

/** the /v1 error answers of a `createRoute` declaration, in OpenAI's error body: `own` words a status for this route group */
export function openaiErrorAnswers(statuses: number[], own: Record<number, string> = {}) {
  return Object.fromEntries(statuses.map((s) => [s, jsonAnswer(openaiErrorSchema, own[s] ?? openaiErrorText[s] ?? 'Error.')]));
}
