import { z } from 'zod';

/** The webhook and admin error body (the one error mapper, `http/error-handler.ts`). */
export const okFalseSchema = z.object({
  ok: z.literal(false),
  error: z.string().describe('What went wrong; a field fault starts with the field name.'),
  details: z.unknown().optional().describe('Schema errors of a mapped hook, when its `schema` refused the payload.'),
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
