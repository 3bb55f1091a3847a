import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { idParams, jsonAnswer, listOf, listQuerySchema } from '../../openapi/common-schemas.js';
import { apiKeySecurity } from '../../openapi/documented-route.js';
import { agentErrors } from '../agents-api.js';

export const documentObjectSchema = z.object({
  id: z.string(),
  object: z.literal('knowledge.document'),
  agent_id: z.string(),
  filename: z.string(),
  bytes: z.number().int(),
  mime_type: z.string(),
  sha256: z.string(),
  status: z.string(),
  chunk_count: z.number().int(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.number().int(),
});

/** a form field of a whole number from `min` to `max`; empty or left out: undefined (the default applies) */
const formInteger = (name: string, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === '') return undefined;
      const n = Number(text);
      if (Number.isInteger(n) && n >= min && n <= max) return n;
      ctx.issues.push({ code: 'custom', message: `${name} must be an integer from ${min} to ${max}`, input: text });
      return z.NEVER;
    });

export const uploadFormSchema = z.object({
  file: z.string().describe('The document (multipart file part): pdf, docx, html, markdown, csv, json, text.'),
  agent_id: z.string({ error: 'agent_id is required' }).describe('The agent whose knowledge base takes it.'),
  chunk_size: formInteger('chunk_size', 100, 20_000).describe('Characters per chunk, 100 to 20000.'),
  chunk_overlap: formInteger('chunk_overlap', 0, 10_000).describe('Characters shared by neighbouring chunks, at most half of chunk_size.'),
  metadata: z.string().optional().describe('A JSON object, kept with the document.'),
});

/** the upload form's text fields as declared (the file part is readUploadForm's) */
export const uploadFormFields = uploadFormSchema.omit({ file: true });

/** POST /v1/knowledge/upload, GET /v1/knowledge, GET and DELETE /v1/knowledge/{id}, as declared for the document */
export const knowledgeApi = {
  upload: createRoute({
    method: 'post', path: '/knowledge/upload', summary: 'Upload a knowledge document', security: apiKeySecurity,
    request: { body: { content: { 'multipart/form-data': { schema: uploadFormSchema } } } },
    responses: {
      201: jsonAnswer(documentObjectSchema, 'Stored, chunked and indexed.'),
      200: jsonAnswer(documentObjectSchema, 'The same content was already stored: the existing document.'),
      ...agentErrors(400, 401, 404, 413, 415, 429),
    },
  }),
  list: createRoute({
    method: 'get', path: '/knowledge', summary: 'List knowledge documents', security: apiKeySecurity,
    request: { query: listQuerySchema.extend({ agent_id: z.string().optional().describe('Only this agent\'s documents.') }) },
    responses: { 200: jsonAnswer(listOf(documentObjectSchema), 'A page of documents.'), ...agentErrors(400, 401, 404, 429) },
  }),
  get: createRoute({
    method: 'get', path: '/knowledge/{id}', summary: 'One knowledge document', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(documentObjectSchema, 'The document.'), ...agentErrors(401, 404, 429) },
  }),
  delete: createRoute({
    method: 'delete', path: '/knowledge/{id}', summary: 'Delete a knowledge document and its chunks', security: apiKeySecurity,
    request: { params: idParams },
    responses: {
      200: jsonAnswer(z.object({ id: z.string(), object: z.literal('knowledge.document.deleted'), deleted: z.literal(true) }), 'Deleted.'),
      ...agentErrors(401, 404, 429),
    },
  }),
};
