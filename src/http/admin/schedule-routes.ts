import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { ZodError } from 'zod';
import { scheduleJobSchema, type ScheduleJob } from '../../config/sections/schedules-schema.js';
import { HeraldError } from '../../errors.js';
import type { ScheduleFire, Store, StoredSchedule } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, idParam, scheduleFireSchema } from './admin-schemas.js';
import { fireView as viewOfFire } from './views/schedule-fire-view.js';
import type { ScheduleBook } from './operator-deps.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const time = z.string().nullable().openapi({ format: 'date-time', example: '2026-11-22T07:00:00.000Z' });

export const scheduleSchema = z
  .object({
    id: z.string(),
    origin: z.enum(['config', 'api']).openapi({ description: "config: a job of the config file (read-only here); api: made through this API (stored, survives restarts)." }),
    enabled: z.boolean(),
    nextDueAt: time.openapi({ description: 'The next fire (null: a one-shot that fired, or a disabled job that never fired).' }),
    createdAt: time,
    updatedAt: time,
    job: z.record(z.string(), z.unknown()).openapi({ description: "The job in OpenClaw's cron shape, defaults filled in (docs/schedules.md)." }),
  })
  .openapi('Schedule');

const scheduleView = (s: StoredSchedule): z.infer<typeof scheduleSchema> => ({
  id: s.id,
  origin: s.origin,
  enabled: s.enabled,
  nextDueAt: s.enabled ? iso(s.nextDue) : null,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
  job: { ...s.job, enabled: s.enabled },
});

const patchBody = z
  .record(z.string(), z.unknown())
  .openapi('SchedulePatch', {
    description: 'Fields of the job to change, each replacing the stored one whole (`{"enabled": false}` disables, `{"schedule": {...}}` reschedules); the id stays.',
    example: { enabled: false },
  });

const limitQuery = z
  .object({
    limit: z
      .string()
      .optional()
      .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000), 'must be an integer from 1 to 1000')
      .transform((v) => (v === undefined ? 100 : Number(v)))
      .openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', example: 20, description: 'At most this many, 1 to 1000 (default 100).' }),
  })
  .strict();

const auth = { 401: json(errorSchema, 'Not signed in'), 403: json(errorSchema, 'A console request without its CSRF token') };
const unknown = { 404: json(errorSchema, 'No such schedule') };
const ofConfig = { 409: json(errorSchema, "The schedule is the config's (HERALD_SCHEDULE_OF_CONFIG): change it in the config file") };
const invalid = { 400: json(errorSchema, 'A field of the job is invalid, named from its root (`schedule.expr`, `payload.agentId`)') };
const params = { params: idParam('Schedule', 'id') };

/** the first fault of a job's schema, as the one 400 of the admin API names a field */
function invalidField(error: ZodError): HeraldError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || 'body';
  return new HeraldError('HERALD_INVALID_FIELD', `${field} ${issue?.message ?? 'is invalid'}`, { param: field });
}

/**
 * Schedules made at run time, beside the config's: listed, made, changed, run now and deleted.
 * A job passes the same checks as the config's (and an `at` in the past is refused) before anything
 * is stored; a config job is read-only here, it can only be run now.
 */
export function registerScheduleRoutes(app: OpenAPIHono, deps: { schedules: ScheduleBook; store: Store }): void {
  const { schedules, store } = deps;

  const found = async (id: string): Promise<StoredSchedule> => {
    const schedule = await schedules.get(id);
    if (!schedule) throw new HeraldError('HERALD_NOT_FOUND', `no schedule "${id}"`, { param: 'id' });
    return schedule;
  };
  const ownOnly = (schedule: StoredSchedule): void => {
    if (schedule.origin === 'config') throw new HeraldError('HERALD_SCHEDULE_OF_CONFIG', `schedule "${schedule.id}" is the config's (schedules.jobs): change it in the config file`, { param: 'id' });
  };
  const checked = (job: ScheduleJob): ScheduleJob => {
    const [fault, ...more] = schedules.faults(job);
    if (fault) throw new HeraldError('HERALD_INVALID_FIELD', `${fault.field}: ${fault.reason}`, { param: fault.field, details: [fault, ...more].map((f) => `${f.field}: ${f.reason}`) });
    return job;
  };
  const fireView = (fire: ScheduleFire) => viewOfFire(store, fire);

  app.openapi(
    createRoute({
      method: 'get',
      path: '/schedules',
      tags: ['schedules'],
      summary: "Every schedule, the config's and those made here, by id, with its next fire",
      security: bearerSecurity,
      responses: { 200: json(z.object({ data: z.array(scheduleSchema) }), 'The schedules'), ...auth },
    }),
    async (c) => c.json({ data: (await schedules.list()).map(scheduleView) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/schedules',
      tags: ['schedules'],
      summary: 'Make a schedule (a job in OpenClaw\'s cron shape): stored, it fires on every replica\'s scheduler and survives restarts',
      security: bearerSecurity,
      request: {
        body: {
          content: {
            'application/json': {
              schema: scheduleJobSchema,
              example: { id: 'morning-brief', name: 'Morning brief', schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Berlin' }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: "Summarise the night's alerts" }, delivery: { mode: 'announce', channel: 'slack', to: '#ops' } },
            },
          },
          required: true,
        },
      },
      responses: { 201: json(scheduleSchema, 'The stored schedule, with its first fire'), ...invalid, ...auth, 409: json(errorSchema, 'A schedule of this id exists (HERALD_SCHEDULE_EXISTS), or the config has it (HERALD_SCHEDULE_OF_CONFIG)') },
    }),
    async (c) => {
      const job = checked(c.req.valid('json') as ScheduleJob);
      const existing = await schedules.get(job.id);
      if (existing) {
        ownOnly(existing);
        throw new HeraldError('HERALD_SCHEDULE_EXISTS', `a schedule "${job.id}" exists: change it with PATCH /admin/schedules/${job.id}`, { param: 'id' });
      }
      return c.json(scheduleView(await schedules.put(job, undefined)), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/schedules/{id}',
      tags: ['schedules'],
      summary: 'One schedule, with its next fire',
      security: bearerSecurity,
      request: params,
      responses: { 200: json(scheduleSchema, 'The schedule'), ...auth, ...unknown },
    }),
    async (c) => c.json(scheduleView(await found(c.req.valid('param').id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/schedules/{id}',
      tags: ['schedules'],
      summary: 'Enable, disable or change a schedule made here: a changed schedule (or one enabled again) is due anew from now',
      security: bearerSecurity,
      request: { ...params, body: { content: { 'application/json': { schema: patchBody } }, required: true } },
      responses: { 200: json(scheduleSchema, 'The schedule as stored now'), ...invalid, ...auth, ...unknown, ...ofConfig },
    }),
    async (c) => {
      const existing = await found(c.req.valid('param').id);
      ownOnly(existing);
      const patch = c.req.valid('json');
      if ('id' in patch && patch.id !== existing.id) throw new HeraldError('HERALD_INVALID_FIELD', 'id cannot change: make a new schedule and delete this one', { param: 'id' });
      const parsed = scheduleJobSchema.safeParse({ ...existing.job, enabled: existing.enabled, ...patch, id: existing.id });
      if (!parsed.success) throw invalidField(parsed.error);
      return c.json(scheduleView(await schedules.put(checked(parsed.data), existing)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/schedules/{id}',
      tags: ['schedules'],
      summary: 'Delete a schedule made here (its fires stay, as history)',
      security: bearerSecurity,
      request: params,
      responses: { 200: json(z.object({ id: z.string(), deleted: z.literal(true) }), 'Deleted'), ...auth, ...unknown, ...ofConfig },
    }),
    async (c) => {
      const existing = await found(c.req.valid('param').id);
      ownOnly(existing);
      if (!(await schedules.remove(existing.id))) throw new HeraldError('HERALD_NOT_FOUND', `no schedule "${existing.id}"`, { param: 'id' });
      return c.json({ id: existing.id, deleted: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/schedules/{id}/run',
      tags: ['schedules'],
      summary: "Run a schedule now (a config job's too, enabled or not): a fire of its own, due now; the schedule's next fire does not move",
      security: bearerSecurity,
      request: params,
      responses: { 200: json(scheduleFireSchema, 'The fire: its run queued, or its event added'), ...auth, ...unknown },
    }),
    async (c) => c.json(await fireView(await schedules.runNow(await found(c.req.valid('param').id))), 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/schedules/{id}/runs',
      tags: ['schedules'],
      summary: "A schedule's fires, newest due first, each with its run and the run's status",
      security: bearerSecurity,
      request: { ...params, query: limitQuery },
      responses: { 200: json(z.object({ data: z.array(scheduleFireSchema) }), 'The fires'), 400: json(errorSchema, 'Invalid parameter'), ...auth, ...unknown },
    }),
    async (c) => {
      const { id } = await found(c.req.valid('param').id);
      const fires = await schedules.fires(id, c.req.valid('query').limit);
      return c.json({ data: await Promise.all(fires.map(fireView)) }, 200);
    },
  );
}
