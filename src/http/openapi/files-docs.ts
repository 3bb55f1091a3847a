import { z } from 'zod';
import { FILE_PURPOSES } from '../../knowledge-stores/files.js';
import { fileBatchCreateSchema, vectorStoreCreateSchema, vectorStoreFileCreateSchema, vectorStoreSearchSchema, vectorStoreUpdateSchema } from '../v1/knowledge/vector-store-requests.js';
import { idParams, listOf, listQuerySchema, openaiErrors } from './common-schemas.js';
import { defineRoutes } from './route-doc.js';

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

const fileUploadSchema = z.object({
  file: z.string().describe('The file (multipart file part).'),
  purpose: z.enum(FILE_PURPOSES).describe('assistants (for vector stores) or user_data.'),
});

const fileCounts = z.object({ in_progress: z.number().int(), completed: z.number().int(), failed: z.number().int(), cancelled: z.number().int(), total: z.number().int() });

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

const fileBatchObjectSchema = z.object({
  id: z.string().describe('vsfb_…'),
  object: z.literal('vector_store.files_batch'),
  created_at: z.number().int(),
  vector_store_id: z.string(),
  status: z.enum(['in_progress', 'completed', 'cancelled']),
  file_counts: fileCounts,
});

const batchParams = z.object({ id: z.string(), batchId: z.string() });
const fileParams = z.object({ id: z.string(), fileId: z.string() });
const deleted = (object: string) => z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });
const own = { 404: 'No such file or vector store (or one the key may not see).', 409: "An agent's own vector store cannot be deleted." };
const errors = (...statuses: number[]) => openaiErrors(statuses, own);

/** /v1/files and /v1/vector_stores: OpenAI's knowledge API */
export const filesDocs = defineRoutes('platform', [
  {
    method: 'post', path: '/files', summary: 'Upload a file', security: 'apiKey',
    request: { body: { schema: fileUploadSchema, contentType: 'multipart/form-data' } },
    responses: { 200: { description: 'The file.', schema: fileObjectSchema }, ...errors(400, 401, 413, 429) },
  },
  {
    method: 'get', path: '/files', summary: 'List files', security: 'apiKey',
    request: { query: listQuerySchema.extend({ purpose: z.string().optional().describe('Only files of this purpose.') }) },
    responses: { 200: { description: 'The files the key may see (every one without `limit`).', schema: listOf(fileObjectSchema) }, ...errors(400, 401, 429) },
  },
  {
    method: 'get', path: '/files/{id}', summary: 'One file', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'The file.', schema: fileObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'get', path: '/files/{id}/content', summary: "A file's bytes", security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'The bytes as uploaded.', contentType: 'application/octet-stream', schema: z.string() }, ...errors(401, 404, 429) },
  },
  {
    method: 'delete', path: '/files/{id}', summary: 'Delete a file (and take it out of every vector store)', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'Deleted.', schema: deleted('file') }, ...errors(401, 404, 429) },
  },
  {
    method: 'post', path: '/vector_stores', summary: 'Create a vector store', security: 'apiKey',
    request: { body: { schema: vectorStoreCreateSchema } },
    responses: { 200: { description: 'The store; its files are in progress until read.', schema: vectorStoreObjectSchema }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'get', path: '/vector_stores', summary: 'List vector stores (the agents\' own first)', security: 'apiKey',
    request: { query: listQuerySchema },
    responses: { 200: { description: 'A page of stores.', schema: listOf(vectorStoreObjectSchema) }, ...errors(400, 401, 429) },
  },
  {
    method: 'get', path: '/vector_stores/{id}', summary: 'One vector store', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'The store.', schema: vectorStoreObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'post', path: '/vector_stores/{id}', summary: 'Rename a vector store or set its metadata', security: 'apiKey',
    request: { params: idParams, body: { schema: vectorStoreUpdateSchema } },
    responses: { 200: { description: 'The store.', schema: vectorStoreObjectSchema }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'delete', path: '/vector_stores/{id}', summary: 'Delete a vector store and its chunks (its files stay)', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'Deleted.', schema: deleted('vector_store.deleted') }, ...errors(401, 404, 409, 429) },
  },
  {
    method: 'post', path: '/vector_stores/{id}/files', summary: 'Add a file to a vector store', security: 'apiKey',
    request: { params: idParams, body: { schema: vectorStoreFileCreateSchema } },
    responses: { 200: { description: 'The store\'s file, in_progress until the document workers have read it.', schema: vectorStoreFileObjectSchema }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'get', path: '/vector_stores/{id}/files', summary: "A vector store's files", security: 'apiKey',
    request: { params: idParams, query: listQuerySchema.extend({ filter: z.enum(['in_progress', 'completed', 'failed', 'cancelled']).optional().describe('Only files of this status.') }) },
    responses: { 200: { description: 'A page of files.', schema: listOf(vectorStoreFileObjectSchema) }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'get', path: '/vector_stores/{id}/files/{fileId}', summary: "One of a vector store's files (its status)", security: 'apiKey',
    request: { params: fileParams },
    responses: { 200: { description: 'The file; in progress, with `openai-poll-after-ms`.', schema: vectorStoreFileObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'get', path: '/vector_stores/{id}/files/{fileId}/content', summary: "A vector store file's parsed content (its chunks)", security: 'apiKey',
    request: { params: fileParams },
    responses: {
      200: {
        description: 'Its chunks, in order; none before it is completed.',
        schema: z.object({ object: z.literal('vector_store.file_content.page'), data: z.array(z.object({ type: z.literal('text'), text: z.string() })), has_more: z.literal(false), next_page: z.null() }),
      },
      ...errors(401, 404, 429),
    },
  },
  {
    method: 'delete', path: '/vector_stores/{id}/files/{fileId}', summary: 'Take a file out of a vector store (the file stays)', security: 'apiKey',
    request: { params: fileParams },
    responses: { 200: { description: 'Removed.', schema: deleted('vector_store.file.deleted') }, ...errors(401, 404, 429) },
  },
  {
    method: 'post', path: '/vector_stores/{id}/file_batches', summary: 'Add files to a vector store together', security: 'apiKey',
    request: { params: idParams, body: { schema: fileBatchCreateSchema } },
    responses: { 200: { description: 'The batch, in_progress until every file is read.', schema: fileBatchObjectSchema }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'get', path: '/vector_stores/{id}/file_batches/{batchId}', summary: 'A file batch (its status)', security: 'apiKey',
    request: { params: batchParams },
    responses: { 200: { description: 'The batch; in progress, with `openai-poll-after-ms`.', schema: fileBatchObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'get', path: '/vector_stores/{id}/file_batches/{batchId}/files', summary: "A file batch's files", security: 'apiKey',
    request: { params: batchParams, query: listQuerySchema.extend({ filter: z.enum(['in_progress', 'completed', 'failed', 'cancelled']).optional().describe('Only files of this status.') }) },
    responses: { 200: { description: 'A page of files.', schema: listOf(vectorStoreFileObjectSchema) }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'post', path: '/vector_stores/{id}/file_batches/{batchId}/cancel', summary: 'Cancel the files of a batch not read yet', security: 'apiKey',
    request: { params: batchParams },
    responses: { 200: { description: 'The batch.', schema: fileBatchObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'post', path: '/vector_stores/{id}/search', summary: 'Search a vector store', security: 'apiKey',
    request: { params: idParams, body: { schema: vectorStoreSearchSchema } },
    responses: { 200: { description: 'The best passages, best first.', schema: searchPageSchema }, ...errors(400, 401, 404, 429) },
  },
]);
