import { z } from 'zod';
import { chatRequestSchema } from '../v1/chat/chat-request.js';
import { embeddingsRequestSchema } from '../v1/embeddings-request.js';
import { idParams, listOf, listQuerySchema, openaiErrors } from './common-schemas.js';
import { defineRoutes } from './route-doc.js';

export const agentObjectSchema = z.object({
  id: z.string(),
  object: z.literal('agent'),
  created: z.number().int(),
  owned_by: z.literal('herald'),
  name: z.string(),
  description: z.string().nullable(),
  model: z.string(),
  knowledge_document_count: z.number().int(),
  retrieval: z.enum(['bm25', 'hybrid']).describe('How its knowledge is searched: full text (BM25), or hybrid (full text fused with vectors) when platform.knowledge.embeddings is set.'),
  vector_store_ids: z.array(z.string()).describe('What its turns search: its own knowledge (vs_agent_<id>), then the vector stores attached in agents.list[].vectorStores.'),
});

export const embeddingsListSchema = z.object({
  object: z.literal('list'),
  data: z.array(z.object({ object: z.literal('embedding'), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]).describe('The vector: numbers, or base64 of little-endian float32.') })),
  model: z.string().describe('The model as the request named it.'),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

export const modelObjectSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.literal('herald') });

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

export const uploadFormSchema = z.object({
  file: z.string().describe('The document (multipart file part): pdf, docx, html, markdown, csv, json, text.'),
  agent_id: z.string().describe('The agent whose knowledge base takes it.'),
  chunk_size: z.string().optional().describe('Characters per chunk, 100 to 20000.'),
  chunk_overlap: z.string().optional().describe('Characters shared by neighbouring chunks, at most half of chunk_size.'),
  metadata: z.string().optional().describe('A JSON object, kept with the document.'),
});

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable().describe('The answer; null when the model only called tools or refused.'),
        refusal: z.string().nullable().describe("The model's refusal, passed through unchanged from an OpenAI-compatible upstream; null otherwise."),
        annotations: z
          .array(z.object({ type: z.literal('url_citation'), url_citation: z.object({ url: z.string(), title: z.string(), start_index: z.number().int(), end_index: z.number().int() }) }))
          .describe('The knowledge passages used, as OpenAI url_citation annotations (url: the knowledge document).'),
      }),
      logprobs: z.null(),
      finish_reason: z.string(),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }).loose(),
  conversation_id: z.string().describe('Extension: the server-side conversation.'),
  citations: z.array(z.record(z.string(), z.unknown())).optional().describe('Extension: the knowledge chunks used.'),
}).loose();

const own = { 404: "No such agent or document, or an agent outside the key's scope (answered alike)." };
const errors = (...statuses: number[]) => openaiErrors(statuses, own);

export const platformDocs = defineRoutes('platform', [
  {
    method: 'get', path: '/agents', summary: 'List the digital employees', security: 'apiKey',
    request: { query: listQuerySchema },
    responses: { 200: { description: 'A page of agents.', schema: listOf(agentObjectSchema) }, ...errors(400, 401, 429) },
  },
  {
    method: 'get', path: '/agents/{id}', summary: 'One digital employee', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'The agent.', schema: agentObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'get', path: '/models', summary: 'The agents as OpenAI models', security: 'apiKey',
    request: { query: listQuerySchema },
    responses: { 200: { description: 'Every agent (paged only with limit).', schema: listOf(modelObjectSchema) }, ...errors(400, 401, 429) },
  },
  {
    method: 'get', path: '/models/{id}', summary: 'One agent as an OpenAI model', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'The model.', schema: modelObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'post', path: '/chat/completions', summary: 'Chat with a digital employee', security: 'apiKey',
    request: { body: { schema: chatRequestSchema } },
    responses: {
      200: { description: 'The answer; with `stream: true`, server-sent `chat.completion.chunk` events ending `data: [DONE]`.', schema: chatCompletionSchema },
      ...errors(400, 401, 404, 413, 415, 429),
    },
  },
  {
    method: 'post', path: '/embeddings', summary: 'Embed text with a configured embeddings model', security: 'apiKey',
    request: { body: { schema: embeddingsRequestSchema } },
    responses: {
      200: { description: 'One embedding per input, in order, and the tokens counted.', schema: embeddingsListSchema },
      ...errors(400, 401, 404, 413, 429, 502),
    },
  },
  {
    method: 'post', path: '/knowledge/upload', summary: 'Upload a knowledge document', security: 'apiKey',
    request: { body: { schema: uploadFormSchema, contentType: 'multipart/form-data' } },
    responses: {
      201: { description: 'Stored, chunked and indexed.', schema: documentObjectSchema },
      200: { description: 'The same content was already stored: the existing document.', schema: documentObjectSchema },
      ...errors(400, 401, 404, 413, 415, 429),
    },
  },
  {
    method: 'get', path: '/knowledge', summary: 'List knowledge documents', security: 'apiKey',
    request: { query: listQuerySchema.extend({ agent_id: z.string().optional().describe('Only this agent\'s documents.') }) },
    responses: { 200: { description: 'A page of documents.', schema: listOf(documentObjectSchema) }, ...errors(400, 401, 404, 429) },
  },
  {
    method: 'get', path: '/knowledge/{id}', summary: 'One knowledge document', security: 'apiKey',
    request: { params: idParams },
    responses: { 200: { description: 'The document.', schema: documentObjectSchema }, ...errors(401, 404, 429) },
  },
  {
    method: 'delete', path: '/knowledge/{id}', summary: 'Delete a knowledge document and its chunks', security: 'apiKey',
    request: { params: idParams },
    responses: {
      200: { description: 'Deleted.', schema: z.object({ id: z.string(), object: z.literal('knowledge.document.deleted'), deleted: z.literal(true) }) },
      ...errors(401, 404, 429),
    },
  },
]);
