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
