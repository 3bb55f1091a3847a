import { OpenAPIHono } from '@hono/zod-openapi';
import { serveDocumented } from '../../openapi/documented-route.js';
import { fileUploadFields, filesApi } from './files-api.js';
import type { Files } from '../../../knowledge-stores/files.js';
import type { StoredFile } from '../../../store/port.js';
import { listPage } from '../list-page.js';
import { readUploadForm } from './multipart-upload.js';
import { declaredParams, declaredQuery, parseParams } from '../request-param.js';

export interface FilesRoutesDeps {
  files: Files;
  maxUploadBytes: number;
}

/** OpenAI's file object (https://platform.openai.com/docs/api-reference/files/object): kept files are `processed` */
export const fileObject = (f: StoredFile) => ({
  id: f.id,
  object: 'file' as const,
  bytes: f.bytes,
  created_at: Math.floor(f.createdAt / 1000),
  expires_at: null,
  filename: f.filename,
  purpose: f.purpose,
  status: 'processed' as const,
  status_details: null,
});

/** POST/GET /v1/files, GET/DELETE /v1/files/:id, GET /v1/files/:id/content */
export function filesRoutes(deps: FilesRoutesDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  serveDocumented(app, filesApi.upload, async (c) => {
    const { file, fields } = await readUploadForm(c, deps.maxUploadBytes);
    const { purpose } = parseParams(fileUploadFields, Object.fromEntries(fields));
    const stored = await deps.files.create(c.get('principal'), { filename: file.name, purpose, bytes: file.bytes });
    return c.json(fileObject(stored));
  });

  serveDocumented(app, filesApi.list, async (c) => {
    const query = declaredQuery(filesApi.list, c);
    return c.json(listPage(query, (await deps.files.list(c.get('principal'), query.purpose)).map(fileObject), 10_000, 'desc'));
  });

  serveDocumented(app, filesApi.get, async (c) => c.json(fileObject(await deps.files.get(c.get('principal'), declaredParams(filesApi.get, c).id))));

  serveDocumented(app, filesApi.content, async (c) => {
    const { bytes } = await deps.files.content(c.get('principal'), declaredParams(filesApi.content, c).id);
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/octet-stream' });
  });

  serveDocumented(app, filesApi.delete, async (c) => {
    const { id } = declaredParams(filesApi.delete, c);
    await deps.files.delete(c.get('principal'), id);
    return c.json({ id, object: 'file' as const, deleted: true });
  });

  return app;
}
