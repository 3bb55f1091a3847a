import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { duration, parseDuration } from '../../config/sections/duration-schema.js';
import type { Store } from '../../store/port.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, fireOutcomes, listQuery, page, scheduleFireSchema } from './admin-schemas.js';
import { decodeCursor, pageOf } from './views/admin-views.js';
import { fireView } from './views/schedule-fire-view.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const q = (name: string, description: string) => ({ param: { name, in: 'query' as const }, description });

/**
 * The fires of every schedule, as the receipts list is for webhook requests: newest due first,
 * cursor-paginated, filtered by job, outcome, run and lateness.
 */
export function registerScheduleFireRoutes(app: OpenAPIHono, deps: { store: Store }): void {
  const { store } = deps;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/schedule-runs',
      tags: ['schedules'],
      summary: 'The fires of every schedule (their receipts): due time, start, lag, outcome and run',
      security: bearerSecurity,
      request: {
        query: listQuery
          .extend({
            schedule: z.string().optional().openapi(q('schedule', 'A job id.')),
            outcome: z.enum(fireOutcomes).optional().openapi(q('outcome', 'claimed, dispatched, skipped, missed or failed.')),
            run: z.string().optional().openapi(q('run', 'The run the fire made.')),
            late: duration.optional().openapi(q('late', 'Only fires that started more than this after their due time (30s, 5m).')),
            missed: z.enum(['true', 'false']).optional().openapi(q('missed', 'true: only fires that did not run as due: skipped, missed, or (with `late`) started late.')),
          })
          .strict(),
      },
      responses: { 200: json(page(scheduleFireSchema), 'One page of fires'), 400: json(errorSchema, 'Invalid parameter'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const rows = await store.schedules.listFires({
        ...query,
        limit: query.limit + 1,
        after: decodeCursor(query.cursor),
        scheduleId: query.schedule,
        runId: query.run,
        lateByMs: query.late === undefined ? undefined : parseDuration(query.late),
        notAsDue: query.missed === 'true' || undefined,
      });
      const page = pageOf(rows, query.limit, (f) => [f.dueAt, f.scheduleId], (f) => f);
      return c.json({ data: await Promise.all(page.data.map((f) => fireView(store, f))), nextCursor: page.nextCursor }, 200);
    },
  );
}
