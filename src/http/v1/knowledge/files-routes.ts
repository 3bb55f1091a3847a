import { OpenAPIHono } from '@hono/zod-openapi';
import { serveDocumented } from '../../openapi/documented-route.js';
import { filesApi } from './files-api.js';
import { HeraldError } from '../../../errors.js';
import { FILE_PURPOSES, type FilePurpose, type Files } from '../../../knowledge-stores/files.js';
import type { StoredFile } from '../../../store/port.js';
import { listPage } from '../list-page.js';
import { readUploadForm } from './multipart-upload.js';

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

const isPurpose = (value: string | undefined): value is FilePurpose => FILE_PURPOSES.includes(value as FilePurpose);

/** POST/GET /v1/files, GET/DELETE /v1/files/:id, GET /v1/files/:id/content */
export function filesRoutes(deps: FilesRoutesDeps): OpenAPIHono {
  const app = new OpenAPIHono();

  serveDocumented(app, filesApi.upload, async (c) => {
    const { file, fields } = await readUploadForm(c, deps.maxUploadBytes);
    const purpose = fields.get('purpose');
    if (!isPurpose(purpose)) {
      throw new HeraldError('HERALD_INVALID_FIELD', `purpose must be one of ${FILE_PURPOSES.map((p) => `"${p}"`).join(', ')}${purpose === undefined ? ' (it is required)' : `, not "${purpose}"`}`, { param: 'purpose' });
    }
    const stored = await deps.files.create(c.get('principal'), { filename: file.name, purpose, bytes: file.bytes });
    return c.json(fileObject(stored));
  });

  serveDocumented(app, filesApi.list, async (c) => {
    const purpose = c.req.query('purpose');
    return c.json(listPage(c, (await deps.files.list(c.get('principal'), purpose)).map(fileObject), 10_000, 'desc'));
  });

  serveDocumented(app, filesApi.get, async (c) => c.json(fileObject(await deps.files.get(c.get('principal'), c.req.param('id')))));

  serveDocumented(app, filesApi.content, async (c) => {
    const { bytes } = await deps.files.content(c.get('principal'), c.req.param('id'));
    return c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/octet-stream' });
  });

  serveDocumented(app, filesApi.delete, async (c) => {
    const id = c.req.param('id');
    await deps.files.delete(c.get('principal'), id);
    return c.json({ id, object: 'file' as const, deleted: true });
  });

  return app;
}
