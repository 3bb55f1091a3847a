import { Cron } from 'croner';
import { z } from 'zod';
import { defaultsOf } from './defaults-of.js';
import { fallbackSchema, retryPolicySchema } from './delivery-policy-schema.js';
import { duration, positiveDuration } from './duration-schema.js';
import { mappingTrafficFields } from './traffic-schema.js';
import { MAX_TIMEOUT_SECONDS, thinkingLevels, wakeModes } from './mapping-schema.js';
import { toolCallPayloadSchema } from './tool-action-schema.js';

/** a job id: it names the job's session (`cron:<id>`), its URL and its metrics label */
export const SCHEDULE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** a job's id made from its name, as OpenClaw's jobs come without one: "Morning brief" -> "morning-brief" */
export function nameSlug(name: string | undefined): string | undefined {
  const slug = (name ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 64)
    .replace(/^-+|-+$/g, '');
  return slug || undefined;
}

/** `at`: an ISO time with its offset (or Z), or a duration from now such as "20m" */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const DURATION = /^\d+(\.\d+)?(ms|s|m|h|d)$/;

/** an IANA time zone the runtime knows */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * How every cron expression is read: the 5 or 6 fields herald documents (no year field), and the
 * step forms without a range (`5/15`) that croner 9 took, so jobs stored before still load and fire as they did.
 */
export const CRON_OPTIONS = { mode: '5-or-6-parts', sloppyRanges: true } as const;

/** why croner refuses a cron expression, or undefined when it takes it */
export function cronFault(expr: string): string | undefined {
  // croner's own message for a wrong count names a seventh field (years), which herald does not read
  const parts = expr.trim().split(/\s+/).length;
  if (!expr.trim().startsWith('@') && parts !== 5 && parts !== 6) return `invalid configuration format ('${expr}'), exactly five or six space separated parts are required`;
  try {
    new Cron(expr, { paused: true, ...CRON_OPTIONS });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
  }
}

const atSchedule = z
  .object({
    kind: z.literal('at'),
    at: z
      .string()
      .refine((v) => (ISO_TIME.test(v) && !Number.isNaN(Date.parse(v))) || DURATION.test(v), 'an ISO time with its offset (2026-01-05T07:00:00+01:00) or a duration from now (20m)')
      .describe('When the one-shot fires: an ISO time with its offset, or a duration from the moment the job is stored ("20m").'),
  })
  .strict();

/** milliseconds as the largest unit that divides them: 3600000 -> "1h", 1500 -> "1500ms" */
function msDuration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

const everySchedule = z
  .object({
    kind: z.literal('every'),
    every: positiveDuration.optional().describe('The period ("15m", "6h"); at least schedules.minEvery. The first fire is one period after the job is stored.'),
    everyMs: z.number().int().positive().optional().describe('OpenClaw\'s name of the period, in milliseconds: an alias of `every`, stored as `every` (3600000 as "1h"). Give one of the two.'),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.every !== undefined && s.everyMs !== undefined) ctx.addIssue({ code: 'custom', path: ['everyMs'], message: 'is an alias of every: give one of the two' });
    if (s.every === undefined && s.everyMs === undefined) ctx.addIssue({ code: 'custom', path: ['every'], message: 'is required (a duration such as "15m", or everyMs in milliseconds)' });
  })
  .transform((s) => ({ kind: s.kind, every: s.every ?? msDuration(s.everyMs ?? 0) }));

const cronSchedule = z
  .object({
    kind: z.literal('cron'),
    expr: z
      .string()
      .superRefine((expr, ctx) => {
        const fault = cronFault(expr);
        if (fault) ctx.addIssue({ code: 'custom', message: fault });
      })
      .describe('A cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), read by croner.'),
    tz: z
      .string()
      .refine(isTimeZone, 'an IANA time zone such as Europe/Berlin')
      .optional()
      .describe('The IANA time zone the expression is read in (default: the machine\'s). Across a daylight-saving change a time that does not exist fires at the first moment after the gap, and a time that happens twice fires once.'),
  })
  .strict();

export const scheduleSchema = z
  .discriminatedUnion('kind', [atSchedule, everySchedule, cronSchedule])
  .describe('When it fires: `{kind:"at", at}` once, `{kind:"every", every}` periodically, `{kind:"cron", expr, tz}` by a cron expression.');

const systemEventPayload = z
  .object({
    kind: z.literal('systemEvent'),
    text: z.string().min(1).describe('The event text added to the main session.'),
  })
  .strict();

const agentTurnPayload = z
  .object({
    kind: z.literal('agentTurn'),
    message: z.string().min(1).describe('The message the agent answers.'),
    agentId: z.string().min(1).optional().describe('The digital employee that runs it (default: the default agent); an unknown id is refused.'),
    model: z.string().optional().describe('A model ref or alias of agents.defaults.models, over the agent\'s.'),
    thinking: z.enum(thinkingLevels).optional().describe('Thinking level of the model call.'),
    timeoutSeconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional().describe('Time limit of the run (default agents.defaults.timeoutSeconds).'),
  })
  .strict();

export const scheduleDeliverySchema = z
  .object({
    mode: z.enum(['announce', 'none', 'webhook']).default('announce').describe('announce: the reply goes to `channel`/`to`, as a hook run\'s does; webhook: to the webhook channel (channels.webhook), `to` passed in its body; none: not delivered (the main session still gets its summary).'),
    channel: z.string().optional().describe('announce: `last` (default) or a channel plugin id or alias.'),
    to: z.string().optional().describe('The recipient on the channel.'),
    bestEffort: z
      .boolean()
      .optional()
      .describe("OpenClaw's switch that keeps a failed announce from failing the job; kept as given. herald's delivery is a record of its own, retried by the delivery policy: a failed delivery never fails the run (whatever this says), it shows on the delivery and the `delivery.failed` alert."),
    retry: retryPolicySchema.optional().describe("Retry schedule of the job's replies, over its agent's and its channel's (as a mapping's `retry`)."),
    fallback: fallbackSchema.optional().describe(`${fallbackSchema.description} For the job's replies (over its agent's), as a mapping's \`fallback\`.`),
  })
  .strict();

export const scheduleJobSchema = z
  .object({
    id: z
      .string()
      .regex(SCHEDULE_ID, 'letters, digits, . _ - (at most 64), starting with a letter or digit')
      .optional()
      .describe('The job\'s id: its session (`cron:<id>`), its URL under /admin/schedules and its metrics label. Absent (as in OpenClaw\'s cron.add), it is made from `name` as a slug ("Morning brief" -> "morning-brief"); a job with neither is refused.'),
    name: z.string().optional().describe('A name for people (the run\'s name; default "Cron <id>").'),
    description: z.string().optional().describe('What it is for.'),
    enabled: z.boolean().default(true).describe('A disabled job keeps its place and fires nothing.'),
    schedule: scheduleSchema,
    sessionTarget: z.enum(['main', 'isolated']).describe('main: the payload (systemEvent) is an event on the main session; isolated: the payload (agentTurn, toolCall) is a run of its own session.'),
    payload: z
      .discriminatedUnion('kind', [systemEventPayload, agentTurnPayload, toolCallPayloadSchema])
      .describe('What a fire does: `{kind:"systemEvent", text}` (sessionTarget main), `{kind:"agentTurn", message, agentId, model, thinking, timeoutSeconds}` (isolated) or `{kind:"toolCall", tool, arguments, requireApproval, retry, then}` (isolated: one tool called directly, no model asked; docs/schedules.md).'),
    wakeMode: z.enum(wakeModes).default('now').describe('now: a heartbeat is asked for at once (the main event, or the isolated run\'s summary); next-heartbeat: it waits for the next one.'),
    sessionKey: z.string().min(1).max(512).optional().describe('isolated: the session the runs share (default `cron:<id>`, so each run sees the ones before).'),
    delivery: scheduleDeliverySchema.default({ mode: 'announce' }).describe('Where an isolated run\'s reply goes.'),
    deleteAfterRun: z.boolean().default(false).describe('Deletes the job once it fired (one-shots).'),
    catchUp: z
      .boolean()
      .default(true)
      .describe('A fire found more than schedules.missedAfter past its due time (herald was down) runs once at start (true), or is recorded as missed and skipped (false). Several missed fires of one job run once, never in a burst.'),
    overlap: z.enum(['skip', 'queue']).default('skip').describe('A fire while the job\'s previous run is still queued or running: skip it (recorded as skipped), or queue a run behind it.'),
    jitter: duration.default('0').describe('Each fire is delayed by a random time up to this, spreading jobs that share a time.'),
    concurrency: mappingTrafficFields.concurrency.describe("At most this many of the job's runs executing at once, across all replicas (as a mapping's `concurrency`); the others wait in order."),
    rate: mappingTrafficFields.rate.describe("At most `runs` of the job's runs starting per window `per`, counted in the store (as a mapping's `rate`): `wait` holds a run until the window allows, `reject` skips the fire (recorded as skipped, `rate limited`)."),
    followUp: z
      .object({
        runId: z.string().describe('The run whose agent set it.'),
        callId: z.string().describe('The tool call\'s record id: the same call made again (a resumed run) sets nothing more.'),
        trusted: z.boolean().describe('The run that set it read only the operator\'s words: otherwise its message is read as outside content, as that run\'s was.'),
      })
      .strict()
      .optional()
      .describe('Set by the herald__schedule_followup tool (docs/tools.md), never needed in the config: the run that set this follow-up.'),
  })
  .strict()
  .superRefine((job, ctx) => {
    const fits = job.sessionTarget === 'main' ? ['systemEvent'] : ['agentTurn', 'toolCall'];
    if (!fits.includes(job.payload.kind)) ctx.addIssue({ code: 'custom', path: ['payload', 'kind'], message: `sessionTarget "${job.sessionTarget}" takes a ${fits.join(' or ')} payload` });
    if (job.sessionTarget === 'main' && job.sessionKey !== undefined) ctx.addIssue({ code: 'custom', path: ['sessionKey'], message: 'only an isolated job has a session of its own' });
    for (const field of ['concurrency', 'rate'] as const) {
      if (job.sessionTarget === 'main' && job[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'only an isolated job makes runs to govern' });
    }
    if (job.id === undefined && !nameSlug(job.name)) ctx.addIssue({ code: 'custom', path: ['id'], message: 'is required (or a name to make it from, letters or digits)' });
  })
  .transform(({ id, ...job }) => ({ id: id ?? nameSlug(job.name)!, ...job }));

export type ScheduleJob = z.output<typeof scheduleJobSchema>;
export type ScheduleJobInput = z.input<typeof scheduleJobSchema>;
export type ScheduleSpec = ScheduleJob['schedule'];

export const followupsSchema = z
  .object({
    maxPerRun: z.number().int().min(0).max(100).default(3).describe('How many follow-ups one run may set with herald__schedule_followup (0: none); one more is a tool error naming this limit.'),
    maxAhead: positiveDuration.default('7d').describe('How far ahead a follow-up may be set; a later one is a tool error naming this limit. The nearest is schedules.minEvery.'),
  })
  .strict();

export const schedulesSchema = z
  .object({
    minEvery: positiveDuration.default('10s').describe('The shortest `every` a job may have (and the shortest gap between two cron fires): a shorter one is refused.'),
    missedAfter: positiveDuration.default('1m').describe('A fire found this long past its due time was missed (herald was down): its job\'s catchUp says whether it runs.'),
    retakeAfter: positiveDuration.default('1m').describe('A fire claimed this long ago and not yet made was left by a process that died (kill -9 between the claim and the run): a running replica makes it then, an isolated run under the id chosen at its claim, so never twice.'),
    followups: followupsSchema.default(defaultsOf(followupsSchema)).describe('Limits of the follow-ups agents set for themselves with the herald__schedule_followup tool (docs/tools.md).'),
    jobs: z.array(scheduleJobSchema).prefault([]).describe('Jobs in OpenClaw\'s cron shape (docs/schedules.md). Jobs made through /admin/schedules are stored beside them; a stored job with a config job\'s id is shadowed by it.'),
  })
  .strict();

export type SchedulesConfig = z.output<typeof schedulesSchema>;
