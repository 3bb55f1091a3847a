import { z } from 'zod';
import { duration, positiveDuration } from './duration-schema.js';

/** Where alerts go: a configured channel and its recipient (the signed generic webhook needs none). */
export const alertTargetSchema = z
  .object({
    channel: z.string().min(1).describe('A configured channel plugin id or alias (telegram, slack, webhook, ...): its channels.<id> section must be present.'),
    to: z.string().optional().describe('Recipient on that channel (a chat id, a channel name); the webhook channel needs none.'),
  })
  .strict();

const ON = 'The condition: delivery.failed, runs.failing, source.silent, queue.stale, outbox.stale, approvals.waiting, watcher.unhealthy, tools.unhealthy, store.unreachable, budget.exceeded, schedule.failing or schedule.missed (see docs/running-unattended.md).';

const deliveryFailedRule = z
  .object({
    on: z.literal('delivery.failed').describe(ON),
    channel: z.string().optional().describe('Only deliveries on this channel plugin id; every channel when unset.'),
  })
  .strict()
  .describe('A delivery (a reply to a channel) failed for good: a permanent error, or its attempts used up. Resolved when it is retried and delivered, or abandoned.');

const runsFailingRule = z
  .object({
    on: z.literal('runs.failing').describe(ON),
    mapping: z.string().optional().describe('The mapping id whose runs are watched.'),
    agent: z.string().optional().describe('The agent id whose runs are watched.'),
    count: z.number().int().positive().max(1000).default(3).describe('How many failed runs raise the alert.'),
    within: positiveDuration
      .optional()
      .describe('Count failures within this window (e.g. 10m); unset: the last `count` finished runs all failed, in a row.'),
  })
  .strict()
  .describe('Runs of a mapping or an agent keep failing (failed or timed out). Resolved when one of its runs succeeds.')
  .refine((rule) => (rule.mapping === undefined) !== (rule.agent === undefined), { message: 'set either mapping or agent' });

const sourceSilentRule = z
  .object({
    on: z.literal('source.silent').describe(ON),
    mapping: z.string().min(1).describe('The mapping id (or preset mapping id) expected to receive requests.'),
    after: positiveDuration.describe('Silence longer than this raises the alert, e.g. 6h.'),
  })
  .strict()
  .describe("A sender stopped sending: no request reached the mapping for `after` (a deleted GitHub webhook, a disabled Stripe endpoint). Resolved by its next request. A mapping's own `expectEvery` declares the same.");

const staleRule = (on: 'queue.stale' | 'outbox.stale', what: string) =>
  z
    .object({
      on: z.literal(on).describe(ON),
      olderThan: positiveDuration.default('15m').describe('Age of the oldest waiting item that raises the alert.'),
    })
    .strict()
    .describe(`${what} has waited longer than \`olderThan\`. Resolved when nothing that old waits.`);

const approvalsWaitingRule = z
  .object({
    on: z.literal('approvals.waiting').describe(ON),
    olderThan: positiveDuration.default('1h').describe('How long a tool call may wait for a person before it is an incident, e.g. 30m.'),
  })
  .strict()
  .describe('A tool call has waited for a person (tools.approvals) longer than `olderThan`: its run is held, and tools.approvalTimeout will refuse it. Resolved when no call waits that long (decided, expired, or its run cancelled).');

const watcherUnhealthyRule = z
  .object({
    on: z.literal('watcher.unhealthy').describe(ON),
    service: z.string().optional().describe('Only this service (e.g. gmail-watcher); every service when unset.'),
  })
  .strict()
  .describe("A plugin's background service reports itself unhealthy (the Gmail watcher: token refresh failed, watch expired and not renewed, its hook unreachable). Resolved when it reports healthy again.");

const toolsUnhealthyRule = z
  .object({
    on: z.literal('tools.unhealthy').describe(ON),
    server: z.string().optional().describe('Only this MCP server (a tools.mcpServers name); every server when unset.'),
    after: positiveDuration
      .default('30s')
      .describe('How long a server may be not connected before it is an incident: a start (npx may fetch the package first) or a restart after a crash is not one.'),
  })
  .strict()
  .describe('An MCP server of tools.mcpServers has not been connected for `after` (it cannot start, keeps exiting, refuses its headers, does not answer). Resolved when it is connected again (or removed from the config).');

const storeUnreachableRule = z
  .object({
    on: z.literal('store.unreachable').describe(ON),
  })
  .strict()
  .describe('The database does not answer. Each replica that notices says so straight through the targets\' channels (the outbox lives in the database); stored, with the resolved notice, once it answers again.');

const budgetExceededRule = z
  .object({
    on: z.literal('budget.exceeded').describe(ON),
    key: z.string().optional().describe('Only the budget of this API key (its name in platform.apiKeys).'),
    agent: z.string().optional().describe('Only the budget of this agent.'),
  })
  .strict()
  .describe('A budget of an API key or an agent (their `budget`) is spent: its calls are refused and its hook runs fail. Resolved when the budget resets (or is raised). Every budget when neither key nor agent is set.');

const scheduleFailingRule = z
  .object({
    on: z.literal('schedule.failing').describe(ON),
    schedule: z.string().optional().describe('Only this job (its id in schedules.jobs or /admin/schedules); every job when unset.'),
    count: z.number().int().positive().max(1000).default(3).describe('How many failed runs raise the alert.'),
    within: positiveDuration.optional().describe('Count failures within this window (e.g. 1h); unset: the last `count` finished runs of the job all failed, in a row.'),
  })
  .strict()
  .describe("A scheduled job's runs keep failing (failed or timed out), as runs.failing judges a mapping's (its runs are those of mapping `schedule:<id>`). Resolved when one of its runs succeeds.");

const scheduleMissedRule = z
  .object({
    on: z.literal('schedule.missed').describe(ON),
    schedule: z.string().optional().describe('Only this job; every job when unset.'),
    lateBy: positiveDuration
      .default('1m')
      .describe('A fire that started more than this after its due time counts as missed too (herald busy or down, a clock stepped forward).'),
  })
  .strict()
  .describe("A scheduled job's newest fire did not run as due: skipped (its previous run still running with overlap skip, or its rate), missed (due while herald was down, catchUp false), or started more than `lateBy` late. Resolved when a later fire of the job runs on time.");

export const alertRuleSchema = z.discriminatedUnion('on', [
  deliveryFailedRule,
  runsFailingRule,
  sourceSilentRule,
  staleRule('queue.stale', 'The oldest queued agent run'),
  staleRule('outbox.stale', 'The oldest pending delivery of the outbox'),
  approvalsWaitingRule,
  watcherUnhealthyRule,
  toolsUnhealthyRule,
  storeUnreachableRule,
  budgetExceededRule,
  scheduleFailingRule,
  scheduleMissedRule,
]);

export const ALERT_CONDITIONS = ['delivery.failed', 'runs.failing', 'source.silent', 'queue.stale', 'outbox.stale', 'approvals.waiting', 'watcher.unhealthy', 'tools.unhealthy', 'store.unreachable', 'budget.exceeded', 'schedule.failing', 'schedule.missed'] as const;
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];

export const alertsSchema = z
  .object({
    targets: z.array(alertTargetSchema).default([]).describe('Where every alert and resolved notice is sent, through the durable delivery outbox.'),
    rules: z.array(alertRuleSchema).default([]).describe('The conditions to alert on, each with an `on`.'),
    cooldown: duration
      .default('30m')
      .describe('After an alert is sent, the same incident raised again within this time is stored but not sent again ("0": every time).'),
    evaluateEvery: positiveDuration
      .default('30s')
      .describe('How often each replica checks the rules (run and delivery changes are checked as they happen too).'),
  })
  .strict();

export type AlertRule = z.output<typeof alertRuleSchema>;
export type AlertTarget = z.output<typeof alertTargetSchema>;
export type AlertsConfig = z.output<typeof alertsSchema>;
