import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { bearerSecurity } from './admin-app.js';
import {
  backtestBody,
  backtestSchema,
  cursorSchema,
  draftFaultSchema,
  dryRunSchema,
  errorSchema,
  listQuery,
  mappingSchemaView,
  mappingTestBody,
  page,
} from './admin-schemas.js';
import { decodeCursor, encodeCursor, receiptView } from './views/admin-views.js';
import type { OperatorDeps } from './operator-deps.js';
import { mappingFaultSchema, type TroubleSources } from './views/trouble-view.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const qp = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description });
const errors = { 400: json(errorSchema, 'Invalid body'), 401: json(errorSchema, 'Not signed in'), 403: json(errorSchema, 'A console request without its CSRF token') };

/** The mappings as configured, a dry run of a request (against them or a draft), and a draft's backtest. */
export function registerMappingRoutes(app: OpenAPIHono, deps: { operator: OperatorDeps; trouble?: Pick<TroubleSources, 'config'> }): void {
  const { lab } = deps.operator;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/mappings',
      tags: ['mappings'],
      summary: 'Every mapping in the order they are tried: where it comes from, its match rules and fixtures; and the mappings the last refused reload could not load',
      security: bearerSecurity,
      request: {
        query: z
          .object({
            path: z.string().optional().openapi(qp('path', 'Only mappings of this hook path.')),
            agent: z.string().optional().openapi(qp('agent', 'Only mappings whose action names this agent.')),
            channel: z.string().optional().openapi(qp('channel', 'Only mappings whose action delivers to this channel.')),
            action: z.enum(['agent', 'wake', 'skip']).optional().openapi(qp('action', 'Only mappings of this action kind.')),
            q: z.string().min(1).max(200).optional().openapi(qp('q', 'A substring of the id, origin, path or name (any case).')),
            limit: listQuery.shape.limit,
            cursor: cursorSchema.optional().openapi(qp('cursor', "The previous page's nextCursor.")),
          })
          .strict(),
      },
      responses: {
        200: json(
          page(mappingSchemaView).extend({
            notLoaded: z.array(mappingFaultSchema).openapi({
              description:
                "The mappings the last refused reload could not load (as the Overview's trouble.mappings): each with its file, id, fault, line and column. They do not run; the running ones stay. On every page and whatever the filters: their declaration is what failed.",
            }),
          }),
          'One page of mappings, in the order they are tried, and the ones not loaded',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const needle = query.q?.toLowerCase();
      const declared = (m: { definition: Record<string, unknown> | null }, key: string) => m.definition?.[key] as string | undefined;
      const matching = (await lab.list())
        .filter((m) => query.path === undefined || m.path === query.path.replace(/^\/+|\/+$/g, ''))
        .filter((m) => query.agent === undefined || declared(m, 'agentId') === query.agent)
        .filter((m) => query.channel === undefined || declared(m, 'channel') === query.channel)
        // a mapping is an agent action unless it says otherwise; the built-ins are named after their kind
        .filter((m) => query.action === undefined || (declared(m, 'action') ?? (m.builtIn ? m.id : 'agent')) === query.action)
        .filter((m) => needle === undefined || [m.id, m.origin, m.path ?? '', declared(m, 'name') ?? ''].some((t) => t.toLowerCase().includes(needle)));
      // mappings keep their configured order (the order they are tried): the cursor is a position in it
      const from = query.cursor ? decodeCursor(query.cursor)!.at : 0;
      const shown = matching.slice(from, from + query.limit);
      const next = from + query.limit < matching.length ? encodeCursor(from + query.limit, shown.at(-1)!.id) : null;
      const notLoaded = deps.trouble?.config?.().mappings ?? [];
      return c.json({ data: shown as z.infer<typeof mappingSchemaView>[], nextCursor: next, notLoaded }, 200);
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
