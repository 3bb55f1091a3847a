import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { FILE_PURPOSES } from '../../../knowledge-stores/files.js';
import { idParams, jsonAnswer, listOf, listQuerySchema, openaiErrorAnswers } from '../../openapi/common-schemas.js';
import { apiKeySecurity } from '../../openapi/documented-route.js';

export const fileObjectSchema = z.object({
  id: z.string().describe('file-…'),
  object: z.literal('file'),
  bytes: z.number().int(),
  created_at: z.number().int(),
  expires_at: z.null(),
  filename: z.string(),
  purpose: z.enum(FILE_PURPOSES),
  status: z.literal('processed'),
  status_details: z.null(),
});

const purposeRefused = (given: unknown) =>
  `purpose must be one of ${FILE_PURPOSES.map((p) => `"${p}"`).join(', ')}${given === undefined ? ' (it is required)' : `, not "${String(given)}"`}`;

const fileUploadSchema = z.object({
  file: z.string().describe('The file (multipart file part).'),
  purpose: z.enum(FILE_PURPOSES, { error: (issue) => purposeRefused(issue.input) }).describe('assistants (for vector stores) or user_data.'),
});

/** the upload form's text fields as declared (the file part is readUploadForm's) */
export const fileUploadFields = fileUploadSchema.omit({ file: true });

/** OpenAI's answer to a delete */
export const deleted = (object: string) => z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });
/** the error answers of /v1/files and /v1/vector_stores */
export const errors = (...statuses: number[]) => openaiErrorAnswers(statuses, { 404: 'No such file or vector store (or one the key may not see).', 409: "An agent's own vector store cannot be deleted." });

/** POST/GET /v1/files, GET/DELETE /v1/files/{id}, GET /v1/files/{id}/content, as declared for the document */
export const filesApi = {
  upload: createRoute({
    method: 'post', path: '/files', summary: 'Upload a file', security: apiKeySecurity,
    request: { body: { content: { 'multipart/form-data': { schema: fileUploadSchema } } } },
    responses: { 200: jsonAnswer(fileObjectSchema, 'The file.'), ...errors(400, 401, 413, 429) },
  }),
  list: createRoute({
    method: 'get', path: '/files', summary: 'List files', security: apiKeySecurity,
    request: { query: listQuerySchema.extend({ purpose: z.string().optional().describe('Only files of this purpose.') }) },
    responses: { 200: jsonAnswer(listOf(fileObjectSchema), 'The files the key may see (every one without `limit`).'), ...errors(400, 401, 429) },
  }),
  get: createRoute({
    method: 'get', path: '/files/{id}', summary: 'One file', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(fileObjectSchema, 'The file.'), ...errors(401, 404, 429) },
  }),
  content: createRoute({
    method: 'get', path: '/files/{id}/content', summary: "A file's bytes", security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(z.string(), 'The bytes as uploaded.', 'application/octet-stream'), ...errors(401, 404, 429) },
  }),
  delete: createRoute({
    method: 'delete', path: '/files/{id}', summary: 'Delete a file (and take it out of every vector store)', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(deleted('file'), 'Deleted.'), ...errors(401, 404, 429) },
  }),
};
