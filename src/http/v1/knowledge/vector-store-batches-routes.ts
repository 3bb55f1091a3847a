import { OpenAPIHono } from '@hono/zod-openapi';
import { serveDocumented } from '../../openapi/documented-route.js';
import { vectorStoreBatchesApi } from './vector-store-batches-api.js';
import type { FileBatchView, VectorStoreBatches } from '../../../knowledge-stores/vector-store-batches.js';
import { listPage } from '../list-page.js';
import { fileBatchCreateSchema, readJson } from './vector-store-requests.js';
import { POLL_AFTER_MS, vectorStoreFileObject } from './vector-stores-routes.js';
import { declaredParams, declaredQuery } from '../request-param.js';

/** OpenAI's vector store file batch object (https://platform.openai.com/docs/api-reference/vector-stores-file-batches/batch-object) */
export function fileBatchObject({ batch, files, status }: FileBatchView) {
  const count = (s: string) => files.filter((f) => f.status === s).length;
  return {
    id: batch.id,
    object: 'vector_store.files_batch' as const,
    created_at: Math.floor(batch.createdAt / 1000),
    vector_store_id: batch.vectorStoreId,
    status,
    file_counts: { in_progress: count('in_progress'), completed: count('completed'), failed: count('failed'), cancelled: count('cancelled'), total: files.length },
  };
}

/** /v1/vector_stores/{id}/file_batches: create, retrieve (polled until done), its files, cancel */
export function vectorStoreBatchesRoutes(deps: { batches: VectorStoreBatches }): OpenAPIHono {
  const app = new OpenAPIHono();

  serveDocumented(app, vectorStoreBatchesApi.create, async (c) => {
    const body = await readJson(c, fileBatchCreateSchema);
    return c.json(fileBatchObject(await deps.batches.create(c.get('principal'), declaredParams(vectorStoreBatchesApi.create, c).id, body.file_ids)));
  });

  serveDocumented(app, vectorStoreBatchesApi.get, async (c) => {
    const { id, batchId } = declaredParams(vectorStoreBatchesApi.get, c);
    const view = await deps.batches.get(c.get('principal'), id, batchId);
    if (view.status === 'in_progress') c.header('openai-poll-after-ms', POLL_AFTER_MS);
    return c.json(fileBatchObject(view));
  });

  serveDocumented(app, vectorStoreBatchesApi.files, async (c) => {
    const { id, batchId } = declaredParams(vectorStoreBatchesApi.files, c);
    const query = declaredQuery(vectorStoreBatchesApi.files, c);
    const { files } = await deps.batches.get(c.get('principal'), id, batchId);
    return c.json(listPage(query, files.filter((f) => query.filter === undefined || f.status === query.filter).map(vectorStoreFileObject), 20, 'desc'));
  });

  serveDocumented(app, vectorStoreBatchesApi.cancel, async (c) => {
    const { id, batchId } = declaredParams(vectorStoreBatchesApi.cancel, c);
    return c.json(fileBatchObject(await deps.batches.cancel(c.get('principal'), id, batchId)));
  });

  return app;
}
