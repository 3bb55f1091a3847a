import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Store } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, isoQueryTime } from './admin-schemas.js';

const q = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description });

export const usageRowSchema = z
  .object({
    group: z.string().nullable().openapi({ description: "The key's, agent's, mapping's or model's name; null for calls without one (a chat has no mapping, a hook run no key)." }),
    day: z.string().optional().openapi({ description: 'The UTC day (YYYY-MM-DD), with interval=day.' }),
    requests: z.number().int().openapi({ description: 'Model calls (chat completions, responses, hook runs, heartbeats, embeddings).' }),
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    totalTokens: z.number().int(),
    estimatedTokens: z.number().int().openapi({ description: 'The part of totalTokens herald estimated (the embedded model, a provider that sent no usage): whitespace words, not tokens.' }),
    cost: z.number().openapi({ description: 'At the prices of models.prices when each call was recorded.' }),
  })
  .openapi('UsageRow');

const usageQuery = z
  .object({
    by: z.enum(['key', 'agent', 'mapping', 'model']).openapi(q('by', 'Group by API key, agent, mapping or model.')),
    since: isoQueryTime.optional().openapi({ ...q('since', 'Calls at or after this time.'), type: 'string', format: 'date-time' }),
    until: isoQueryTime.optional().openapi({ ...q('until', 'Calls before this time.'), type: 'string', format: 'date-time' }),
    interval: z.enum(['day']).optional().openapi(q('interval', 'day: one row per group and UTC day.')),
  })
  .strict();

/** GET /admin/usage: the tokens every model call spent, summed by key, agent, mapping or model */
export function registerUsageRoutes(app: OpenAPIHono, deps: { store: Store }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/usage',
      tags: ['usage'],
      summary: 'Tokens and cost by API key, agent, mapping or model, optionally per day',
      security: bearerSecurity,
      request: { query: usageQuery },
      responses: {
        200: {
          content: {
            'application/json': {
              schema: z.object({
                by: z.enum(['key', 'agent', 'mapping', 'model']),
                interval: z.enum(['day']).nullable(),
                since: z.string().nullable(),
                until: z.string().nullable(),
                data: z.array(usageRowSchema).openapi({ description: 'Most tokens first (within each day, days in order).' }),
              }),
            },
          },
          description: 'The totals',
        },
        400: { content: { 'application/json': { schema: errorSchema } }, description: 'Invalid parameter' },
        401: { content: { 'application/json': { schema: errorSchema } }, description: 'Not signed in' },
      },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const data = await deps.store.usage.report({ by: query.by, since: query.since, until: query.until, perDay: query.interval === 'day' });
      return c.json({ by: query.by, interval: query.interval ?? null, since: iso(query.since ?? null), until: iso(query.until ?? null), data }, 200);
    },
  );
}
