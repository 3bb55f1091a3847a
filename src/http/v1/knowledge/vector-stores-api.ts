import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { idParams, jsonAnswer, listOf, listQuerySchema } from '../../openapi/common-schemas.js';
import { apiKeySecurity } from '../../openapi/documented-route.js';
import { deleted, errors } from './files-api.js';
import { vectorStoreCreateSchema, vectorStoreFileCreateSchema, vectorStoreSearchSchema, vectorStoreUpdateSchema } from './vector-store-requests.js';

export const fileCounts = z.object({ in_progress: z.number().int(), completed: z.number().int(), failed: z.number().int(), cancelled: z.number().int(), total: z.number().int() });

export const vectorStoreObjectSchema = z.object({
  id: z.string().describe('vs_…; an agent\'s own knowledge is vs_agent_<agent id>.'),
  object: z.literal('vector_store'),
  created_at: z.number().int(),
  name: z.string(),
  usage_bytes: z.number().int(),
  file_counts: fileCounts,
  status: z.enum(['in_progress', 'completed']),
  expires_after: z.null(),
  expires_at: z.null(),
  last_active_at: z.number().int(),
  metadata: z.record(z.string(), z.string()),
  agent_id: z.string().optional().describe('Extension: the agent whose own knowledge this store is.'),
});

export const vectorStoreFileObjectSchema = z
  .object({
    id: z.string().describe('The file id.'),
    object: z.literal('vector_store.file'),
    usage_bytes: z.number().int(),
    created_at: z.number().int(),
    vector_store_id: z.string(),
    status: z.enum(['in_progress', 'completed', 'failed', 'cancelled']),
    last_error: z.object({ code: z.enum(['server_error', 'unsupported_file', 'invalid_file']), message: z.string() }).nullable(),
  })
  .loose();

const searchPageSchema = z.object({
  object: z.literal('vector_store.search_results.page'),
  search_query: z.array(z.string()),
  data: z.array(
    z.object({
      file_id: z.string(),
      filename: z.string(),
      score: z.number().describe('Higher is better (BM25, or fused with vector similarity); not bounded to 1.'),
      attributes: z.record(z.string(), z.unknown()),
      content: z.array(z.object({ type: z.literal('text'), text: z.string() })),
    }),
  ),
  has_more: z.literal(false),
  next_page: z.null(),
});

const fileParams = z.object({ id: z.string(), fileId: z.string() });
/** the files of a store or a batch, by status */
export const fileListQuery = listQuerySchema.extend({ filter: z.enum(['in_progress', 'completed', 'failed', 'cancelled'], { error: 'filter must be one of "in_progress", "completed", "failed", "cancelled"' }).optional().describe('Only files of this status.') });

/** /v1/vector_stores and their files, as declared for the document */
export const vectorStoresApi = {
  create: createRoute({
    method: 'post', path: '/vector_stores', summary: 'Create a vector store', security: apiKeySecurity,
    request: { body: { content: { 'application/json': { schema: vectorStoreCreateSchema } } } },
    responses: { 200: jsonAnswer(vectorStoreObjectSchema, 'The store; its files are in progress until read.'), ...errors(400, 401, 404, 429) },
  }),
  list: createRoute({
    method: 'get', path: '/vector_stores', summary: 'List vector stores (the agents\' own first)', security: apiKeySecurity,
    request: { query: listQuerySchema },
    responses: { 200: jsonAnswer(listOf(vectorStoreObjectSchema), 'A page of stores.'), ...errors(400, 401, 429) },
  }),
  get: createRoute({
    method: 'get', path: '/vector_stores/{id}', summary: 'One vector store', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(vectorStoreObjectSchema, 'The store.'), ...errors(401, 404, 429) },
  }),
  update: createRoute({
    method: 'post', path: '/vector_stores/{id}', summary: 'Rename a vector store or set its metadata', security: apiKeySecurity,
    request: { params: idParams, body: { content: { 'application/json': { schema: vectorStoreUpdateSchema } } } },
    responses: { 200: jsonAnswer(vectorStoreObjectSchema, 'The store.'), ...errors(400, 401, 404, 429) },
  }),
  delete: createRoute({
    method: 'delete', path: '/vector_stores/{id}', summary: 'Delete a vector store and its chunks (its files stay)', security: apiKeySecurity,
    request: { params: idParams },
    responses: { 200: jsonAnswer(deleted('vector_store.deleted'), 'Deleted.'), ...errors(401, 404, 409, 429) },
  }),
  addFile: createRoute({
    method: 'post', path: '/vector_stores/{id}/files', summary: 'Add a file to a vector store', security: apiKeySecurity,
    request: { params: idParams, body: { content: { 'application/json': { schema: vectorStoreFileCreateSchema } } } },
    responses: { 200: jsonAnswer(vectorStoreFileObjectSchema, 'The store\'s file, in_progress until the document workers have read it.'), ...errors(400, 401, 404, 429) },
  }),
  files: createRoute({
    method: 'get', path: '/vector_stores/{id}/files', summary: "A vector store's files", security: apiKeySecurity,
    request: { params: idParams, query: fileListQuery },
    responses: { 200: jsonAnswer(listOf(vectorStoreFileObjectSchema), 'A page of files.'), ...errors(400, 401, 404, 429) },
  }),
  file: createRoute({
    method: 'get', path: '/vector_stores/{id}/files/{fileId}', summary: "One of a vector store's files (its status)", security: apiKeySecurity,
    request: { params: fileParams },
    responses: { 200: jsonAnswer(vectorStoreFileObjectSchema, 'The file; in progress, with `openai-poll-after-ms`.'), ...errors(401, 404, 429) },
  }),
  fileContent: createRoute({
    method: 'get', path: '/vector_stores/{id}/files/{fileId}/content', summary: "A vector store file's parsed content (its chunks)", security: apiKeySecurity,
    request: { params: fileParams },
    responses: {
      200: jsonAnswer(
        z.object({ object: z.literal('vector_store.file_content.page'), data: z.array(z.object({ type: z.literal('text'), text: z.string() })), has_more: z.literal(false), next_page: z.null() }),
        'Its chunks, in order; none before it is completed.',
      ),
      ...errors(401, 404, 429),
    },
  }),
  removeFile: createRoute({
    method: 'delete', path: '/vector_stores/{id}/files/{fileId}', summary: 'Take a file out of a vector store (the file stays)', security: apiKeySecurity,
    request: { params: fileParams },
    responses: { 200: jsonAnswer(deleted('vector_store.file.deleted'), 'Removed.'), ...errors(401, 404, 429) },
  }),
  search: createRoute({
    method: 'post', path: '/vector_stores/{id}/search', summary: 'Search a vector store', security: apiKeySecurity,
    request: { params: idParams, body: { content: { 'application/json': { schema: vectorStoreSearchSchema } } } },
    responses: { 200: jsonAnswer(searchPageSchema, 'The best passages, best first.'), ...errors(400, 401, 404, 429) },
  }),
};
