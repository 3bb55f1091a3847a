import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { bearerSecurity } from './admin-app.js';
import { backtestBody, backtestSchema, draftFaultSchema, dryRunSchema, errorSchema, mappingSchemaView, mappingTestBody } from './admin-schemas.js';
import { receiptView } from './admin-views.js';
import type { OperatorDeps } from './operator-deps.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = { 400: json(errorSchema, 'Invalid body'), 401: json(errorSchema, 'Not signed in'), 403: json(errorSchema, 'A console request without its CSRF token') };

/** The mappings as configured, a dry run of a request (against them or a draft), and a draft's backtest. */
export function registerMappingRoutes(app: OpenAPIHono, deps: { operator: OperatorDeps }): void {
  const { lab } = deps.operator;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/mappings',
      tags: ['mappings'],
      summary: 'Every mapping in the order they are tried: where it comes from, its match rules and fixtures',
      security: bearerSecurity,
      request: {
        query: z.object({
          path: z.string().optional().openapi({ param: { name: 'path', in: 'query' }, description: 'Only mappings of this hook path.' }),
          q: z.string().optional().openapi({ param: { name: 'q', in: 'query' }, description: 'A substring of the id or origin.' }),
        }),
      },
      responses: { 200: json(z.object({ data: z.array(mappingSchemaView), nextCursor: z.null() }), 'All mappings (one page)'), 401: errors[401] },
    }),
    async (c) => {
      const { path, q } = c.req.valid('query');
      const data = lab
        .list()
        .filter((m) => path === undefined || m.path === path.replace(/^\/+|\/+$/g, ''))
        .filter((m) => q === undefined || m.id.includes(q) || m.origin.includes(q));
      return c.json({ data: data as z.infer<typeof mappingSchemaView>[], nextCursor: null }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/mappings/test',
      tags: ['mappings'],
      summary: 'Dry run (as `herald hooks test`): what a payload and headers would become, against the configured mappings or a draft; nothing is dispatched',
      security: bearerSecurity,
      request: { body: { content: { 'application/json': { schema: mappingTestBody } }, required: true } },
      responses: {
        200: json(z.object({ faults: z.array(draftFaultSchema), outcome: dryRunSchema.optional() }), 'The outcome, or the faults of the draft'),
        ...errors,
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const result = await lab.test(body);
      return c.json(result as { faults: z.infer<typeof draftFaultSchema>[]; outcome?: z.infer<typeof dryRunSchema> }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/mappings/backtest',
      tags: ['mappings'],
      summary: 'Run a draft mapping over the newest retained requests of its path: the outcome before and after, per request',
      security: bearerSecurity,
      request: { body: { content: { 'application/json': { schema: backtestBody } }, required: true } },
      responses: { 200: json(backtestSchema, 'Per retained request: before, after, changed'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const result = await lab.backtest(body);
      return c.json(
        { ...result, results: result.results.map((r) => ({ ...r, receipt: receiptView(r.receipt) })) } as z.infer<typeof backtestSchema>,
        200,
      );
    },
  );
}
