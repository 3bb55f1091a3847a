import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Store, StoredVectorStoreFile } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, fileRowSchema, vectorStoreFileStatuses, vectorStoreRowSchema } from './admin-schemas.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = { 400: json(errorSchema, 'Invalid parameter'), 401: json(errorSchema, 'Not signed in') };
const query = z
  .object({
    limit: z
      .string()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'))
      .optional()
      .openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', description: 'At most this many, newest first (default 100, at most 1000).' }),
    q: z.string().min(1).max(200).optional().openapi({ param: { name: 'q', in: 'query' }, description: 'A substring of the id or name (any case).' }),
  })
  .strict();

const has = (needle: string | undefined, ...texts: string[]) => needle === undefined || texts.some((t) => t.toLowerCase().includes(needle.toLowerCase()));

/**
 * The files of /v1/files and the vector stores of /v1/vector_stores, every API key's (the operator
 * sees them all), for the console's Files page. A vector store's file rows tell which files
 * it holds and how far each one's processing went.
 */
export function registerFileRoutes(app: OpenAPIHono, deps: { store: Pick<Store, 'files' | 'vectorStores'> }): void {
  const { store } = deps;
  /** every store's file rows, by file id: a file's places, without a read per file */
  const rowsByFile = async () => {
    const byFile = new Map<string, StoredVectorStoreFile[]>();
    for (const vs of await store.vectorStores.list()) {
      for (const row of await store.vectorStores.listFiles(vs.id)) byFile.set(row.fileId, [...(byFile.get(row.fileId) ?? []), row]);
    }
    return byFile;
  };

  app.openapi(
    createRoute({
      method: 'get',
      path: '/files',
      tags: ['files'],
      summary: 'Files uploaded through /v1/files (every key\'s), newest first, with the vector stores holding each',
      security: bearerSecurity,
      request: { query },
      responses: { 200: json(z.object({ data: z.array(fileRowSchema), total: z.number().int() }), 'The files'), ...errors },
    }),
    async (c) => {
      const { limit = 100, q } = c.req.valid('query');
      const matching = (await store.files.list()).filter((f) => has(q, f.id, f.filename)).reverse();
      const places = await rowsByFile();
      const data = matching.slice(0, limit).map((f) => ({
        id: f.id,
        filename: f.filename,
        purpose: f.purpose,
        bytes: f.bytes,
        status: 'processed' as const,
        createdAt: iso(f.createdAt),
        agents: f.agents ?? null,
        vectorStores: (places.get(f.id) ?? []).map((r) => ({ id: r.vectorStoreId, status: r.status })),
      }));
      return c.json({ data, total: matching.length }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/vector-stores',
      tags: ['files'],
      summary: 'Vector stores made through /v1/vector_stores (every key\'s), newest first: their files and how far each one\'s processing went',
      security: bearerSecurity,
      request: { query },
      responses: { 200: json(z.object({ data: z.array(vectorStoreRowSchema), total: z.number().int() }), 'The vector stores'), ...errors },
    }),
    async (c) => {
      const { limit = 100, q } = c.req.valid('query');
      const matching = (await store.vectorStores.list()).filter((v) => has(q, v.id, v.name)).reverse();
      const names = new Map((await store.files.list()).map((f) => [f.id, f.filename]));
      const data = [];
      for (const v of matching.slice(0, limit)) {
        const rows = await store.vectorStores.listFiles(v.id);
        const counts = Object.fromEntries(vectorStoreFileStatuses.map((s) => [s, rows.filter((r) => r.status === s).length])) as Record<(typeof vectorStoreFileStatuses)[number], number>;
        data.push({
          id: v.id,
          name: v.name,
          metadata: v.metadata,
          createdAt: iso(v.createdAt),
          agents: v.agents ?? null,
          bytes: rows.reduce((sum, r) => sum + r.bytes, 0),
          fileCounts: { ...counts, total: rows.length },
          files: rows.map((r) => ({
            fileId: r.fileId,
            filename: names.get(r.fileId) ?? null,
            status: r.status,
            bytes: r.bytes,
            lastError: r.lastError,
            createdAt: iso(r.createdAt),
          })),
        });
      }
      return c.json({ data, total: matching.length }, 200);
    },
  );
}
