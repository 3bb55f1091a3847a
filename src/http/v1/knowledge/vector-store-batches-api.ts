import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { idParams, jsonAnswer, listOf } from '../../openapi/common-schemas.js';
import { apiKeySecurity } from '../../openapi/documented-route.js';
import { errors } from './files-api.js';
import { fileBatchCreateSchema } from './vector-store-requests.js';
import { fileCounts, fileListQuery, vectorStoreFileObjectSchema } from './vector-stores-api.js';

const fileBatchObjectSchema = z.object({
  id: z.string().describe('vsfb_…'),
  object: z.literal('vector_store.files_batch'),
  created_at: z.number().int(),
  vector_store_id: z.string(),
  status: z.enum(['in_progress', 'completed', 'cancelled']),
  file_counts: fileCounts,
});

const batchParams = z.object({ id: z.string(), batchId: z.string() });

/** /v1/vector_stores/{id}/file_batches, as declared for the document */
export const vectorStoreBatchesApi = {
  create: createRoute({
    method: 'post', path: '/vector_stores/{id}/file_batches', summary: 'Add files to a vector store together', security: apiKeySecurity,
    request: { params: idParams, body: { content: { 'application/json': { schema: fileBatchCreateSchema } } } },
    responses: { 200: jsonAnswer(fileBatchObjectSchema, 'The batch, in_progress until every file is read.'), ...errors(400, 401, 404, 429) },
  }),
  get: createRoute({
    method: 'get', path: '/vector_stores/{id}/file_batches/{batchId}', summary: 'A file batch (its status)', security: apiKeySecurity,
    request: { params: batchParams },
    responses: { 200: jsonAnswer(fileBatchObjectSchema, 'The batch; in progress, with `openai-poll-after-ms`.'), ...errors(401, 404, 429) },
  }),
  files: createRoute({
    method: 'get', path: '/vector_stores/{id}/file_batches/{batchId}/files', summary: "A file batch's files", security: apiKeySecurity,
    request: { params: batchParams, query: fileListQuery },
    responses: { 200: jsonAnswer(listOf(vectorStoreFileObjectSchema), 'A page of files.'), ...errors(400, 401, 404, 429) },
  }),
  cancel: createRoute({
    method: 'post', path: '/vector_stores/{id}/file_batches/{batchId}/cancel', summary: 'Cancel the files of a batch not read yet', security: apiKeySecurity,
    request: { params: batchParams },
    responses: { 200: jsonAnswer(fileBatchObjectSchema, 'The batch.'), ...errors(401, 404, 429) },
  }),
};
