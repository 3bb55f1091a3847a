import { OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../../errors.js';
import { DEFAULT_CHUNK, type ChunkOptions } from '../../../knowledge/parsing/chunk-text.js';
import type { KnowledgeDocument } from '../../../knowledge/knowledge-index.js';
import { KnowledgeDocuments, type KnowledgeDocumentsDeps } from '../../../runtime/v1/knowledge-documents.js';
import { listPage } from '../list-page.js';
import { serveDocumented } from '../../openapi/documented-route.js';
import { knowledgeApi } from './knowledge-api.js';
import { readUploadForm } from './multipart-upload.js';

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

function integerField(fields: Map<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = fields.get(name);
  if (text === undefined || text.trim() === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new HeraldError('HERALD_INVALID_FIELD', `${name} must be an integer from ${min} to ${max}`, { param: name });
  return n;
}

function chunkingOf(fields: Map<string, string>): ChunkOptions {
  const size = integerField(fields, 'chunk_size', DEFAULT_CHUNK.size, 100, 20_000);
  const overlap = integerField(fields, 'chunk_overlap', Math.min(DEFAULT_CHUNK.overlap, Math.floor(size / 2)), 0, 10_000);
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
function metadataOf(fields: Map<string, string>): Record<string, unknown> | null | undefined {
  const text = fields.get('metadata');
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
    const { document, created } = await documents.upload(c.get('principal'), {
      agentId: fields.get('agent_id'),
      filename: file.name,
      bytes: file.bytes,
      chunking: chunkingOf(fields),
      chunkingGiven: ['chunk_size', 'chunk_overlap'].some((name) => fields.get(name)?.trim()),
      metadata: metadataOf(fields),
    });
    return c.json(documentObject(document), created ? 201 : 200);
  });

  serveDocumented(app, knowledgeApi.list, async (c) => {
    const listed = await documents.list(c.get('principal'), c.req.query('agent_id'));
    return c.json(listPage(c, listed.map(documentObject)));
  });

  serveDocumented(app, knowledgeApi.get, async (c) => c.json(documentObject(await documents.get(c.get('principal'), c.req.param('id')))));

  serveDocumented(app, knowledgeApi.delete, async (c) => {
    const document = await documents.delete(c.get('principal'), c.req.param('id'));
    return c.json({ id: document.id, object: 'knowledge.document.deleted', deleted: true });
  });

  return app;
}
