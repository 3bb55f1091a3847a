import { OpenAPIHono } from '@hono/zod-openapi';
import { serveDocumented } from '../../openapi/documented-route.js';
import { vectorStoresApi } from './vector-stores-api.js';
import type { ApiPrincipal } from '../../../accounts/api-keys.js';
import type { VectorStores, VectorStoreView } from '../../../knowledge-stores/vector-stores.js';
import type { StoredVectorStoreFile } from '../../../store/port.js';
import { listPage } from '../list-page.js';
import { readJson, vectorStoreCreateSchema, vectorStoreFileCreateSchema, vectorStoreSearchSchema, vectorStoreUpdateSchema } from './vector-store-requests.js';
import { declaredParams, declaredQuery } from '../request-param.js';

/** how soon the official client's `poll` asks again about a file in progress (its `openai-poll-after-ms`) */
export const POLL_AFTER_MS = '250';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** OpenAI's vector store file object (https://platform.openai.com/docs/api-reference/vector-stores-files/file-object) */
export const vectorStoreFileObject = (f: StoredVectorStoreFile) => ({
  id: f.fileId,
  object: 'vector_store.file' as const,
  usage_bytes: f.status === 'completed' ? f.bytes : 0,
  created_at: seconds(f.createdAt),
  vector_store_id: f.vectorStoreId,
  status: f.status,
  last_error: f.lastError,
  attributes: {},
  chunking_strategy: { type: 'static' as const, static: { max_chunk_size_tokens: 250, chunk_overlap_tokens: 38 } },
});

/** OpenAI's vector store object (https://platform.openai.com/docs/api-reference/vector-stores/object), with its files counted */
export function vectorStoreObject(view: VectorStoreView, files: StoredVectorStoreFile[]) {
  const count = (status: StoredVectorStoreFile['status']) => files.filter((f) => f.status === status).length;
  const counts = { in_progress: count('in_progress'), completed: count('completed'), failed: count('failed'), cancelled: count('cancelled'), total: files.length };
  return {
    id: view.id,
    object: 'vector_store' as const,
    created_at: seconds(view.createdAt),
    name: view.name,
    usage_bytes: files.reduce((sum, f) => sum + (f.status === 'completed' ? f.bytes : 0), 0),
    file_counts: counts,
    status: counts.in_progress ? ('in_progress' as const) : ('completed' as const),
    expires_after: null,
    expires_at: null,
    last_active_at: files.length ? seconds(Math.max(view.createdAt, ...files.map((f) => f.createdAt))) : seconds(view.createdAt),
    metadata: view.metadata ?? {},
    ...(view.agentId !== undefined && { agent_id: view.agentId }),
  };
}

/**
 * /v1/vector_stores: create, list, retrieve, modify, delete; its files (add, list, retrieve,
 * delete) and search. A file added answers at once, `in_progress`; its status changes when the
 * document workers have read it.
 */
export function vectorStoresRoutes(deps: { vectorStores: VectorStores }): OpenAPIHono {
  const app = new OpenAPIHono();
  const stores = deps.vectorStores;
  const objectOf = async (principal: ApiPrincipal, view: VectorStoreView) => vectorStoreObject(view, await stores.files(principal, view.id));

  serveDocumented(app, vectorStoresApi.create, async (c) => {
    const body = await readJson(c, vectorStoreCreateSchema);
    const view = await stores.create(c.get('principal'), { name: body.name, metadata: body.metadata, fileIds: body.file_ids });
    return c.json(await objectOf(c.get('principal'), view));
  });

  serveDocumented(app, vectorStoresApi.list, async (c) => {
    const principal = c.get('principal');
    const views = await stores.list(principal);
    const objects = await Promise.all(views.map(async (view) => vectorStoreObject(view, await stores.files(principal, view.id))));
    return c.json(listPage(declaredQuery(vectorStoresApi.list, c), objects, 20, 'desc'));
  });

  serveDocumented(app, vectorStoresApi.get, async (c) => c.json(await objectOf(c.get('principal'), await stores.resolve(c.get('principal'), declaredParams(vectorStoresApi.get, c).id))));

  serveDocumented(app, vectorStoresApi.update, async (c) => {
    const body = await readJson(c, vectorStoreUpdateSchema);
    const view = await stores.update(c.get('principal'), declaredParams(vectorStoresApi.update, c).id, { ...(body.name != null && { name: body.name }), ...(body.metadata !== undefined && { metadata: body.metadata }) });
    return c.json(await objectOf(c.get('principal'), view));
  });

  serveDocumented(app, vectorStoresApi.delete, async (c) => {
    const { id } = declaredParams(vectorStoresApi.delete, c);
    await stores.delete(c.get('principal'), id);
    return c.json({ id, object: 'vector_store.deleted' as const, deleted: true });
  });

  serveDocumented(app, vectorStoresApi.addFile, async (c) => {
    const body = await readJson(c, vectorStoreFileCreateSchema);
    const row = await stores.addFile(c.get('principal'), declaredParams(vectorStoresApi.addFile, c).id, body.file_id);
    return c.json(vectorStoreFileObject(row));
  });

  serveDocumented(app, vectorStoresApi.files, async (c) => {
    const query = declaredQuery(vectorStoresApi.files, c);
    const rows = (await stores.files(c.get('principal'), declaredParams(vectorStoresApi.files, c).id)).filter((f) => query.filter === undefined || f.status === query.filter);
    return c.json(listPage(query, rows.map(vectorStoreFileObject), 20, 'desc'));
  });

  serveDocumented(app, vectorStoresApi.file, async (c) => {
    const { id, fileId } = declaredParams(vectorStoresApi.file, c);
    const row = await stores.file(c.get('principal'), id, fileId);
    if (row.status === 'in_progress') c.header('openai-poll-after-ms', POLL_AFTER_MS);
    return c.json(vectorStoreFileObject(row));
  });

  // the file as it was read: its chunks, in order (neighbouring chunks share their edges)
  serveDocumented(app, vectorStoresApi.fileContent, async (c) => {
    const { id, fileId } = declaredParams(vectorStoresApi.fileContent, c);
    const chunks = await stores.contentOf(c.get('principal'), id, fileId);
    return c.json({ object: 'vector_store.file_content.page' as const, data: chunks.map((text) => ({ type: 'text' as const, text })), has_more: false, next_page: null });
  });

  serveDocumented(app, vectorStoresApi.removeFile, async (c) => {
    const { id, fileId } = declaredParams(vectorStoresApi.removeFile, c);
    await stores.removeFile(c.get('principal'), id, fileId);
    return c.json({ id: fileId, object: 'vector_store.file.deleted' as const, deleted: true });
  });

  serveDocumented(app, vectorStoresApi.search, async (c) => {
    const body = await readJson(c, vectorStoreSearchSchema);
    const view = await stores.resolve(c.get('principal'), declaredParams(vectorStoresApi.search, c).id);
    const queries = typeof body.query === 'string' ? [body.query] : body.query;
    const passages = await stores.search([view], queries.join('\n'), body.max_num_results ?? 10);
    return c.json({
      object: 'vector_store.search_results.page' as const,
      search_query: queries,
      data: passages.map((p) => ({ file_id: p.fileId ?? p.documentId, filename: p.filename, score: p.score, attributes: {}, content: [{ type: 'text' as const, text: p.content }] })),
      has_more: false,
      next_page: null,
    });
  });

  return app;
}
