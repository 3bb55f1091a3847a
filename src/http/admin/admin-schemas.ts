import { z } from '@hono/zod-openapi';
import type { RunStatus } from '../../store/port.js';
import { errorCodes } from '../openapi/common-schemas.js';
import { toolCallSchema } from './views/tool-call-view.js';
import { toolServerSchema } from './views/tool-server-view.js';
import { troubleSchema } from './views/trouble-view.js';

/**
 * The admin API's schemas, declared once: they validate the requests (params, query, bodies)
 * and document requests and answers in /admin/openapi.json. Times in answers are ISO 8601.
 */
const time = z.string().nullable().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });
export const isoQueryTime = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 time')
  .transform((v) => Date.parse(v));

export const cursorSchema = z.string().regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be a cursor from a previous page');

/** the query every list takes: `limit`, `cursor`, a time range and a text search */
export const listQuery = z.object({
  limit: z
    .string()
    .optional()
    .refine((v) => v === undefined || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 1000), 'must be an integer from 1 to 1000')
    .transform((v) => (v === undefined ? 100 : Number(v)))
    .openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', example: 50, description: 'Page size, 1 to 1000 (default 100).' }),
  cursor: cursorSchema.optional().openapi({ param: { name: 'cursor', in: 'query' }, description: "The previous page's nextCursor." }),
  since: isoQueryTime.optional().openapi({ param: { name: 'since', in: 'query' }, type: 'string', format: 'date-time', description: 'Only rows at or after this time.' }),
  until: isoQueryTime.optional().openapi({ param: { name: 'until', in: 'query' }, type: 'string', format: 'date-time', description: 'Only rows at or before this time.' }),
  q: z.string().min(1).max(200).optional().openapi({ param: { name: 'q', in: 'query' }, description: 'A substring of the ids and names of a row.' }),
});

export const page = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next (older) page; null on the last page.' }) });

export const errorSchema = z.object({ ok: z.literal(false), error: z.string(), code: z.enum(errorCodes).openapi({ description: "The error catalog's code (docs/errors.md): what a client branches on." }), details: z.unknown().optional() }).openapi('Error');

export const receiptOutcomes = ['wake', 'agent', 'tool', 'skip', 'error', 'idempotent_replay', 'respond'] as const;
export const receiptSchema = z
  .object({
    id: z.string(),
    requestId: z.string(),
    receivedAt: time,
    method: z.string(),
    path: z.string().openapi({ description: 'The hook path after hooks.path.' }),
    mappingId: z.string().nullable(),
    status: z.number().int(),
    outcome: z.enum(receiptOutcomes),
    errorCode: z.string().nullable(),
    runId: z.string().nullable(),
    eventId: z.number().int().nullable(),
    idempotencyKey: z.string().nullable(),
    authMethod: z.enum(['bearer', 'header', 'query', 'signature', 'none', 'operator', 'verify-token']),
    signature: z.string().nullable().openapi({ description: 'The mapping ids whose signature verified, `invalid`, or null when none was checked.' }),
    clientAddress: z.string().nullable(),
    bodyBytes: z.number().int(),
    latencyMs: z.number(),
    replayOf: z.string().nullable(),
    retainedUntil: time,
    traceId: z.string().nullable().openapi({ description: 'The request\'s trace (OpenTelemetry) when tracing was on; the console links it through tracing.linkTemplate.' }),
    failure: z
      .object({
        stage: z.string().openapi({ description: 'The step that failed: auth (the signature was refused; the cause is the reason, e.g. certificate not trusted), schema, template, transform, respond or action (dispatch for a forEach item refused as it was dispatched).' }),
        mappingId: z.string(),
        cause: z.string().openapi({ description: "The error's message, the request's values (4 characters or more) replaced by ‹value›." }),
        at: z.string().optional().openapi({ description: 'A transform\'s `file:line` inside hooks.transformsDir, from its stack.' }),
        items: z
          .array(
            z.object({
              index: z.number().int().openapi({ description: "The item's index in the payload's forEach array." }),
              stage: z.string().openapi({ description: 'schema, template, transform, respond, action, or dispatch (refused as it was dispatched: a rate limit).' }),
              cause: z.string(),
              at: z.string().optional(),
            }),
          )
          .optional()
          .openapi({ description: 'A forEach mapping that failed for some of its items (the others ran): each failed item, at most 20; the failure\'s stage, cause and `at` are the first one\'s, its cause counting them.' }),
      })
      .nullable()
      .openapi({ description: "Where and why the request's mapping failed; null when it did not." }),
  })
  .openapi('Receipt');

export const retainedPayloadSchema = z
  .object({
    body: z.string().openapi({ description: 'The raw body as UTF-8 text.' }),
    headers: z.record(z.string(), z.string()),
    query: z.record(z.string(), z.string()),
    expiresAt: time,
  })
  .openapi('RetainedPayload');

export const runStatuses = ['queued', 'running', 'waiting_approval', 'succeeded', 'failed', 'timed_out', 'cancelled'] as const satisfies readonly RunStatus[];
export const runSchema = z
  .object({
    id: z.string(),
    status: z.enum(runStatuses),
    agentId: z.string(),
    name: z.string(),
    sessionKey: z.string(),
    message: z.string(),
    reply: z.string().nullable(),
    error: z.string().nullable(),
    mappingId: z.string().nullable(),
    rerunOf: z.string().nullable(),
    model: z.string().nullable().describe('The model that answered (provider/model): the primary, or the fallback that took over; null until one did.'),
    waited: z
      .object({
        reason: z.enum(['concurrency', 'rate', 'coalesce']).describe("What held the run back: its mapping's concurrency, its rate, or its coalescing window."),
        until: time.describe('The earliest start its rate or coalescing window allowed; null when only the concurrency held it.'),
        ms: z.number().nullable().describe('How long it waited, from its arrival to its start; null until it started.'),
      })
      .nullable()
      .describe("Why the run waited to start (a mapping's concurrency, rate or coalesce); null when nothing held it back."),
    coalescedCount: z.number().int().nullable().describe("The events coalesced into this run (its own included), listed in its message; each one's receipt names the run (runId). Null for a run of a mapping that does not coalesce."),
    traceId: z.string().nullable().describe('The trace (OpenTelemetry) of the request that made the run, which its execution joins; null when tracing was off.'),
    createdAt: time,
    startedAt: time,
    finishedAt: time,
  })
  .openapi('Run');

/** a run as a list row names it (requests, deliveries, fires): what tells it apart from the others */
export const runLabelSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: "The run's name (its mapping's `name`, or the action's)." }),
    agentId: z.string(),
    status: z.enum(runStatuses),
  })
  .openapi('RunLabel');

export const receiptRowSchema = receiptSchema
  .extend({ run: runLabelSchema.nullable().openapi({ description: 'The run the request started (name, agent, status); null without one, or when it is no longer stored.' }) })
  .openapi('ReceiptRow');

export const messageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string(),
    createdAt: time,
    citations: z.array(z.string()).optional().openapi({ description: "An answer's citations: the knowledge chunks its model was given." }),
    toolCalls: z
      .array(z.object({ id: z.string(), name: z.string().describe('The tool as the model named it (`<server>__<tool>`).'), arguments: z.unknown().describe('The arguments (JSON, or the text the model wrote) with secret-looking values masked as ••••.') }))
      .optional()
      .openapi({ description: 'An assistant turn that called tools: the calls it asked for, in order (its content may be empty). Their results follow as `tool` messages.' }),
    toolCallId: z.string().optional().openapi({ description: 'A `tool` message: the call it answers.' }),
    tool: z.string().nullable().optional().openapi({ description: 'A `tool` message: the tool of the call it answers (null when that turn is not among the messages shown).' }),
  })
  .openapi('SessionMessage');

export const fireOutcomes = ['claimed', 'dispatched', 'skipped', 'missed', 'failed'] as const;

/** a fire as the admin API shows it: the receipt of a schedule, as a webhook request has one */
export const scheduleFireSchema = z
  .object({
    source: z.string().openapi({ description: 'What made the run or event: `schedule <id>` (a webhook request\'s receipt names its path instead).', example: 'schedule morning-brief' }),
    scheduleId: z.string(),
    dueAt: time.openapi({ description: 'The due time (for a run now, the moment it was asked).' }),
    startedAt: time.openapi({ description: 'When herald made the fire: claimed it and queued its run or added its event.' }),
    firedAt: time.openapi({ description: 'The same as startedAt (the name of earlier answers).' }),
    lagMs: z.number().int().openapi({ description: 'startedAt minus dueAt, in milliseconds: how late the fire started.' }),
    outcome: z.enum(fireOutcomes).openapi({ description: 'claimed: taken, its run or event not made yet; dispatched: its run queued or its event added; skipped (overlap, or the job\'s rate), missed (catchUp false) or failed, with `detail`.' }),
    detail: z.string().nullable(),
    run: z
      .object({
        id: z.string(),
        name: z.string().nullable().openapi({ description: "The run's name; null when it is no longer stored." }),
        agentId: z.string().nullable(),
        status: z.enum(runStatuses).nullable(),
        startedAt: time,
        finishedAt: time,
      })
      .nullable()
      .openapi({ description: "An isolated job's run, as it stands (status null: no longer stored), with when it began executing and ended; null for a main-session event." }),
  })
  .openapi('ScheduleFire');

export const toolCallCountsSchema = z
  .object({
    made: z.number().int().describe('Every tool call the model asked for.'),
    waiting: z.number().int().describe("Calls waiting for a person's decision."),
    refused: z.number().int().describe('Calls not executed: refused by policy (not granted, past tools.maxToolCalls) or denied by a person or the approval timeout.'),
    failed: z.number().int().describe('Calls executed that failed, timed out, or were interrupted by a stop.'),
  })
  .openapi('ToolCallCounts');

export const runTimesSchema = z
  .object({
    queuedMs: z.number().int().nullable().describe('From its creation to its first claim (startedAt); null while it was never claimed.'),
    approvalWaitMs: z.number().int().describe("Waiting for a person's decision on its tool calls: per model turn, from the first call held to the last decision, summed (so far, while it waits)."),
    workedMs: z.number().int().nullable().describe('From its first claim to its end, less approvalWaitMs: the time herald worked on it; null until it ended.'),
  })
  .openapi('RunTimes', { description: 'How the run\'s time was spent, each part once: queued, waiting for a person, worked (docs/console.md#runs).' });

/** a run as the Runs list shows it: with what its tools did and how its time was spent */
export const runListItemSchema = runSchema.extend({ tools: toolCallCountsSchema, times: runTimesSchema }).openapi('RunListItem');

export const runDetailSchema = runSchema
  .extend({
    tools: toolCallCountsSchema,
    times: runTimesSchema,
    toolLimit: z
      .object({ max: z.number().int(), reached: z.boolean() })
      .nullable()
      .openapi({ description: "tools.maxToolCalls for the run's turn and whether it was reached (a call refused past it, or as many made as it allows: the model was then told to answer without tools); null for a run that called no tool." }),
    awaitingSignIn: z
      .array(z.string())
      .openapi({ description: "The agent's MCP servers that waited for a person to sign in (needs_authorization) at the run's start or by its end: their tools were not offered, or a call to them failed. Sign in: POST /admin/tools/servers/{name}/authorize, the console's Sign in button or `herald tools authorize NAME`. Empty when none did, or the run has no answer recorded." }),
    action: z.record(z.string(), z.unknown()),
    delivery: z.unknown(),
    prompt: z.string().nullable().openapi({ description: 'The user message as the model saw it (with the safety wrapper); null before the run finished.' }),
    model: z.string().nullable(),
    transcript: z.array(messageSchema),
    receipt: receiptSchema.nullable(),
    fire: scheduleFireSchema.nullable().openapi({ description: 'The schedule fire that made the run (its receipt: job, due time, start, lag); null for a run a request or an operator made.' }),
    reruns: z.array(z.string()),
    toolCalls: z.array(toolCallSchema).openapi({ description: "The run's tool calls in the order its model turns made them (arguments masked), with each one's approval." }),
  })
  .openapi('RunDetail');

export const eventSchema = z
  .object({
    id: z.number().int(),
    session: z.string(),
    text: z.string(),
    status: z.enum(['pending', 'processing', 'done', 'dropped']),
    createdAt: time,
    untrusted: z.boolean().openapi({ description: "The summary of a run over outside content (its mapping without allowUnsafeExternalContent): the heartbeat is told to read it as data. The text stays as OpenClaw words it." }),
  })
  .openapi('SystemEvent');

export const deliveryStatuses = ['pending', 'sending', 'delivered', 'failed', 'abandoned'] as const;
export const deliverySchema = z
  .object({
    id: z.string(),
    runId: z.string().nullable(),
    kind: z.enum(['run', 'heartbeat', 'alert', 'tool']),
    status: z.enum(deliveryStatuses),
    channel: z.string().nullable(),
    to: z.string().nullable(),
    attempts: z.number().int(),
    partsSent: z.number().int(),
    lastError: z.string().nullable(),
    createdAt: time,
    updatedAt: time,
    nextAttemptAt: time,
    deliveredAt: time,
    fallbackOf: z.string().nullable().openapi({ description: 'The delivery this one replaces (its target failed for good); null for a first delivery.' }),
    retriedAt: time.openapi({ description: 'When an operator last retried it.' }),
  })
  .openapi('Delivery');

export const deliveryRowSchema = deliverySchema
  .extend({ run: runLabelSchema.nullable().openapi({ description: 'The run whose reply it carries (name, agent, status); null for a heartbeat, alert or tool message, or a run no longer stored.' }) })
  .openapi('DeliveryRow');

export const deliveryDetailSchema = deliverySchema
  .extend({ chain: z.array(deliverySchema).openapi({ description: 'The reply\'s deliveries in order: the first, then each fallback that replaced the one before.' }) })
  .openapi('DeliveryDetail');

/** which failed deliveries a bulk retry or abandon acts on, and whether only to count them */
export const bulkDeliveryRequestSchema = z
  .object({
    channel: z.string().min(1).optional().openapi({ description: 'Channel plugin id.' }),
    mapping: z.string().min(1).optional().openapi({ description: 'Replies of runs whose action this mapping resolved.' }),
    since: isoQueryTime.optional().openapi({ type: 'string', format: 'date-time', description: 'Created at or after this time.' }),
    until: isoQueryTime.optional().openapi({ type: 'string', format: 'date-time', description: 'Created at or before this time.' }),
    error: z.string().min(1).max(200).optional().openapi({ description: 'A substring of the last error (case-insensitive), e.g. chat not found.' }),
    dryRun: z.boolean().default(false).openapi({ description: 'Only count the matching deliveries (the count to confirm); nothing changes.' }),
  })
  .strict()
  .openapi('BulkDeliveryRequest');

export const bulkDeliveryResultSchema = z
  .object({
    count: z.number().int().openapi({ description: 'Failed deliveries matched (dryRun) or changed.' }),
    dryRun: z.boolean(),
  })
  .openapi('BulkDeliveryResult');

export const sessionSchema = z
  .object({
    key: z.string(),
    agentId: z.string().openapi({ description: 'The agent of its first message; the main session belongs to the default agent.' }),
    messages: z.number().int(),
    firstAt: time,
    lastAt: time,
  })
  .openapi('Session');

const fixtureSchema = z.object({
  name: z.string().optional(),
  path: z.string().optional(),
  payload: z.unknown(),
  form: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  query: z.record(z.string(), z.string()).optional(),
  expect: z.record(z.string(), z.unknown()),
});

export const mappingSchemaView = z
  .object({
    id: z.string(),
    origin: z.string().openapi({ description: 'Where it is declared: hooks.mappings[i], a mapping file and index, a preset, or built-in.' }),
    path: z.string().nullable(),
    builtIn: z.boolean(),
    signed: z.boolean(),
    retainPayloads: z
      .union([z.boolean(), z.object({ sample: z.number(), days: z.number().optional() })])
      .openapi({ description: 'Whether its requests are retained for replay: all, none, or a sample of the successful ones kept some days.' }),
    match: z.record(z.string(), z.unknown()),
    matchText: z.string().openapi({ description: '`match` as YAML, the way a mapping file writes it.', example: 'path: github\nheaders:\n  x-github-event: push' }),
    definition: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'The mapping as declared; a signing secret shows as "(set)".' }),
    fixtureFile: z.string().nullable().openapi({ description: "Where its fixtures are: the file beside its mapping file (`github.test.json` beside `github.yaml`), or its preset's `plugins/<id>/fixtures/<id>.json`; null without one." }),
    fixtures: z.array(fixtureSchema).openapi({ description: "The cases of the fixture file this mapping handles: those whose request meets it first among the mappings of its file (or preset entry), as `herald hooks test` applies them." }),
  })
  .openapi('Mapping');

export const draftFaultSchema = z
  .object({ field: z.string(), message: z.string(), expression: z.string().optional(), position: z.number().int().optional() })
  .openapi('DraftFault');

export const dryRunSchema = z
  .object({
    type: z.enum(['action', 'skip', 'respond', 'error']),
    mappingId: z.string().optional(),
    action: z.record(z.string(), z.unknown()).optional(),
    response: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The mapping's own answer: a handshake's (status, body, contentType), or what an action awaiting its reply answers (waitMs, status, contentType, fallback)." }),
    prompt: z.string().optional().openapi({ description: 'An agent action: the message as its model would see it (safety wrapper included).' }),
    idempotencyKey: z.string().optional(),
    status: z.number().int().optional(),
    code: z.string().optional(),
    error: z.string().optional(),
    reason: z.string().optional().openapi({ description: "A mapping's own failure (template, transform): the reason the caller never sees." }),
    fault: draftFaultSchema.optional().openapi({ description: 'A template that failed on this request: its field and the `{{ }}` expression at fault.' }),
    details: z.unknown().optional(),
  })
  .openapi('DryRunOutcome');

const stringMap = z.record(z.string(), z.string());
export const mappingTestBody = z
  .object({
    path: z.string().max(500).openapi({ example: 'github' }),
    payload: z.unknown().openapi({ example: { action: 'opened' } }),
    headers: stringMap.optional(),
    query: stringMap.optional(),
    draft: z.unknown().optional().openapi({ description: 'A mapping (as in a mapping file, JSON) to test instead of the configured ones.' }),
  })
  .openapi('MappingTest');

export const backtestBody = z
  .object({
    draft: z.unknown().openapi({ description: 'The draft mapping (as in a mapping file, JSON).' }),
    path: z.string().max(500).optional().openapi({ description: "Defaults to the draft's match.path." }),
    limit: z.number().int().min(1).max(500).default(50),
  })
  .openapi('Backtest');

export const backtestSchema = z
  .object({
    faults: z.array(draftFaultSchema),
    path: z.string().optional(),
    results: z.array(z.object({ receipt: receiptSchema, before: dryRunSchema, after: dryRunSchema, changed: z.boolean() })),
  })
  .openapi('BacktestResult');

const minute = z.object({ minute: time, total: z.number().int(), failed: z.number().int() });
export const overviewSchema = z
  .object({
    trouble: troubleSchema.openapi({ description: 'What needs the operator first: open alerts, a refused reload, mappings that failed to load, unhealthy model providers, channels and MCP servers.' }),
    perMinute: z.object({ requests: z.array(minute), runs: z.array(minute), deliveries: z.array(minute) }),
    queues: z.object({
      runsQueued: z.number().int(),
      runsRunning: z.number().int(),
      eventsPending: z.number().int(),
      deliveries: z.record(z.string(), z.number().int()),
    }),
    retainedBytes: z.number().int(),
    toolServers: z.array(toolServerSchema).openapi({ description: "The MCP servers of tools.mcpServers and their health, as this replica's connections see them." }),
    approvals: z
      .object({
        waiting: z.number().int().openapi({ description: 'Tool calls waiting for a person (those GET /admin/approvals lists), counted up to 100 (`capped` beyond).' }),
        capped: z.boolean().openapi({ description: 'More than `waiting` wait.' }),
        oldestAt: time.openapi({ description: 'When the oldest of them was asked for; null when none waits.' }),
      })
      .openapi({ description: 'What waits for a person: trouble the operator acts on in the Approvals page.' }),
  })
  .openapi('Overview');

export const idParam = (name: string, description: string) =>
  z.object({ id: z.string().min(1).max(200).openapi({ param: { name: 'id', in: 'path' }, description: `${name} ${description}` }) });

export const vectorStoreFileStatuses = ['in_progress', 'completed', 'failed', 'cancelled'] as const;

/** a file of /v1/files as the operator sees it: whose it is and where it went */
export const fileRowSchema = z
  .object({
    id: z.string(),
    filename: z.string(),
    purpose: z.string(),
    bytes: z.number().int(),
    status: z.literal('processed').openapi({ description: "OpenAI's file status: a kept file is processed (how far a vector store got with it is in `vectorStores`)." }),
    createdAt: time,
    agents: z.array(z.string()).nullable().openapi({ description: 'The agents of the API key that uploaded it; null: a key of every agent.' }),
    vectorStores: z.array(z.object({ id: z.string(), status: z.enum(vectorStoreFileStatuses) })).openapi({ description: 'The vector stores holding it, with its processing status in each.' }),
  })
  .openapi('FileRow');

export const vectorStoreRowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    metadata: z.record(z.string(), z.string()).nullable(),
    createdAt: time,
    agents: z.array(z.string()).nullable().openapi({ description: 'The agents of the API key that made it; null: a key of every agent.' }),
    bytes: z.number().int().openapi({ description: 'The bytes of its files.' }),
    fileCounts: z
      .object({ in_progress: z.number().int(), completed: z.number().int(), failed: z.number().int(), cancelled: z.number().int(), total: z.number().int() })
      .openapi({ description: "Its files by processing status, as OpenAI's `file_counts`." }),
    files: z
      .array(
        z.object({
          fileId: z.string(),
          filename: z.string().nullable().openapi({ description: 'null: the file was deleted from /v1/files.' }),
          status: z.enum(vectorStoreFileStatuses),
          bytes: z.number().int(),
          lastError: z.object({ code: z.string(), message: z.string() }).nullable(),
          createdAt: time,
        }),
      )
      .openapi({ description: 'Its files, oldest first.' }),
  })
  .openapi('VectorStoreRow');
