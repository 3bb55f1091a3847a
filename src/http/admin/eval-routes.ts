import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HeraldError } from '../../errors.js';
import { evalRequestSchema } from '../../runtime/evals/eval-request.js';
import type { EvalJobs } from '../../runtime/evals/eval-jobs.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema, idParam } from './admin-schemas.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = { 401: json(errorSchema, 'Not signed in'), 403: json(errorSchema, 'A console request without its CSRF token') };

const reportSchema = z
  .object({
    summary: z.record(z.string(), z.unknown()).openapi({ description: 'How many requests were replayed and how many changed in each way (docs/evals.md, "The report").' }),
    cases: z.array(z.record(z.string(), z.unknown())).openapi({ description: 'Per request: the recorded side, the candidate side, what changed, the tool-call diff, the intended writes.' }),
    casesCut: z.boolean().openapi({ description: 'More requests were replayed than the report keeps (the summary counts them all).' }),
  })
  .openapi('EvalReport');
const jobSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'succeeded', 'failed', 'stopped']),
    progress: z.object({ done: z.number().int(), total: z.number().int() }),
    startedAt: z.number().int(),
    finishedAt: z.number().int().nullable(),
    error: z.string().nullable(),
    report: reportSchema.nullable(),
  })
  .openapi('EvalJob');

/** `POST /admin/evals` and its jobs: the console's "Try a change", and CI without the CLI */
export function registerEvalRoutes(app: OpenAPIHono, deps: { evals: EvalJobs }): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/evals',
      tags: ['evals'],
      summary: 'Replay recorded requests through a candidate (overrides, mappings) and compare: the report, or a job when it is long',
      security: bearerSecurity,
      request: { body: { content: { 'application/json': { schema: evalRequestSchema } }, required: true } },
      responses: {
        200: json(reportSchema, 'The report (at most 20 replays: requests times repeats)'),
        202: json(jobSchema, 'A longer eval runs as a job: follow it with GET /admin/evals/{id}'),
        400: json(errorSchema, 'Invalid body, or a candidate that does not load (each fault named)'),
        ...errors,
      },
    }),
    async (c) => {
      const started = await deps.evals.start(c.req.valid('json'));
      return 'report' in started ? c.json(started.report as unknown as z.infer<typeof reportSchema>, 200) : c.json(started.job as unknown as z.infer<typeof jobSchema>, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/evals/{id}',
      tags: ['evals'],
      summary: "An eval job: its progress, then its report (kept in this process's memory, the last 20)",
      security: bearerSecurity,
      request: { params: idParam('Eval job', 'id') },
      responses: { 200: json(jobSchema, 'The job'), 404: json(errorSchema, 'No such job (another replica, or forgotten)'), ...errors },
    }),
    async (c) => {
      const job = deps.evals.get(c.req.valid('param').id);
      if (!job) throw new HeraldError('HERALD_NOT_FOUND', 'eval not found');
      return c.json(job as unknown as z.infer<typeof jobSchema>, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/evals/{id}/stop',
      tags: ['evals'],
      summary: 'Stops an eval job after the request in flight; its report holds what was done',
      security: bearerSecurity,
      request: { params: idParam('Eval job', 'id') },
      responses: { 200: json(jobSchema, 'The job, stopping'), 404: json(errorSchema, 'No such job'), ...errors },
    }),
    async (c) => {
      const job = deps.evals.stop(c.req.valid('param').id);
      if (!job) throw new HeraldError('HERALD_NOT_FOUND', 'eval not found');
      return c.json(job as unknown as z.infer<typeof jobSchema>, 200);
    },
  );
}
