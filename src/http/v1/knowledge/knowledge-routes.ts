import { OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../../errors.js';
import { DEFAULT_CHUNK, type ChunkOptions } from '../../../knowledge/parsing/chunk-text.js';
import type { KnowledgeDocument } from '../../../knowledge/knowledge-index.js';
import { KnowledgeDocuments, type KnowledgeDocumentsDeps } from '../../../runtime/v1/knowledge-documents.js';
import { listPage } from '../list-page.js';
import { serveDocumented } from '../../openapi/documented-route.js';
import { knowledgeApi, uploadFormFields } from './knowledge-api.js';
import { readUploadForm } from './multipart-upload.js';
import { declaredParams, declaredQuery, parseParams } from '../request-param.js';

export interface KnowledgeRoutesDeps extends KnowledgeDocumentsDeps {
  maxUploadBytes: number;
}

/** metadata is a small label set kept with the document, not a second document */
export const METADATA_MAX_BYTES = 16 * 1024;
export const METADATA_MAX_DEPTH = 8;

export const documentObject = (d: KnowledgeDocument) => ({
  id: d.id,
  object: 'knowledge.document' as const,
  agent_id: d.agentId,
  filename: d.filename,
  bytes: d.bytes,
  mime_type: d.mimeType,
  sha256: d.sha256,
  status: d.status,
  chunk_count: d.chunkCount,
  metadata: d.metadata,
  created_at: Math.floor(d.createdAt / 1000),
});

/** the chunking the form asks for, its ranges checked by the declared fields (knowledge-api.ts) */
function chunkingOf(fields: { chunk_size?: number; chunk_overlap?: number }): ChunkOptions {
  const size = fields.chunk_size ?? DEFAULT_CHUNK.size;
  const overlap = fields.chunk_overlap ?? Math.min(DEFAULT_CHUNK.overlap, Math.floor(size / 2));
  if (overlap > size / 2) throw new HeraldError('HERALD_INVALID_FIELD', `chunk_overlap must be at most half of chunk_size (${Math.floor(size / 2)})`, { param: 'chunk_overlap' });
  return { size, overlap };
}

/** nesting depth of a parsed JSON value, walked without recursion (a deep value must not overflow the stack here either) */
function depthOf(root: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (!value || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > max) return deepest;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** undefined when the form has no metadata field; an empty one clears it (null) */
function metadataOf(text: string | undefined): Record<string, unknown> | null | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === '') return null;
  if (Buffer.byteLength(text) > METADATA_MAX_BYTES) {
    throw new HeraldError('HERALD_INVALID_FIELD', `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`, { param: 'metadata' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HeraldError('HERALD_INVALID_FIELD', 'metadata must be a JSON object (as a string)', { param: 'metadata' });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new HeraldError('HERALD_INVALID_FIELD', 'metadata must be a JSON object', { param: 'metadata' });
  if (depthOf(value, METADATA_MAX_DEPTH) > METADATA_MAX_DEPTH) {
    throw new HeraldError('HERALD_INVALID_FIELD', `metadata may nest at most ${METADATA_MAX_DEPTH} levels deep`, { param: 'metadata' });
  }
  return value as Record<string, unknown>;
}

/** POST /v1/knowledge/upload, GET /v1/knowledge, GET and DELETE /v1/knowledge/:id */
export function knowledgeRoutes(deps: KnowledgeRoutesDeps): OpenAPIHono {
  const app = new OpenAPIHono();
  const documents = new KnowledgeDocuments(deps);

  serveDocumented(app, knowledgeApi.upload, async (c) => {
    const { file, fields } = await readUploadForm(c, deps.maxUploadBytes);
    const form = parseParams(uploadFormFields, Object.fromEntries(fields));
    const { document, created } = await documents.upload(c.get('principal'), {
      agentId: form.agent_id,
      filename: file.name,
      bytes: file.bytes,
      chunking: chunkingOf(form),
      chunkingGiven: form.chunk_size !== undefined || form.chunk_overlap !== undefined,
      metadata: metadataOf(form.metadata),
    });
    return c.json(documentObject(document), created ? 201 : 200);
  });

  serveDocumented(app, knowledgeApi.list, async (c) => {
    const query = declaredQuery(knowledgeApi.list, c);
    const listed = await documents.list(c.get('principal'), query.agent_id);
    return c.json(listPage(query, listed.map(documentObject)));
  });

  serveDocumented(app, knowledgeApi.get, async (c) => c.json(documentObject(await documents.get(c.get('principal'), declaredParams(knowledgeApi.get, c).id))));

  serveDocumented(app, knowledgeApi.delete, async (c) => {
    const document = await documents.delete(c.get('principal'), declaredParams(knowledgeApi.delete, c).id);
    return c.json({ id: document.id, object: 'knowledge.document.deleted', deleted: true });
  });

  return app;
}
