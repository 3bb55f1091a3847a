import { z } from 'zod';
import { defaultsOf } from './sections/defaults-of.js';
import { isCidr } from './cidr.js';
import { MAX_TIMEOUT_SECONDS, mappingSchema, thinkingLevels } from './sections/mapping-schema.js';
import { normaliseHooksPath } from './hooks-path.js';
import { alertsSchema } from './sections/alerts-schema.js';
import { agentToolsSchema, toolsSchema } from './sections/tools-schema.js';
import { mcpEndpointSchema } from './sections/mcp-endpoint-schema.js';
import { duration } from './sections/duration-schema.js';
import { fallbackSchema, retryPolicySchema } from './sections/delivery-policy-schema.js';
import { schedulesSchema } from './sections/schedules-schema.js';
import { tracingSchema } from './sections/tracing-schema.js';

/**
 * The whole configuration file, declared once: types come from `z.infer`, validation from
 * `safeParse`, the configuration reference (docs/configuration.md) from `z.toJSONSchema` (see `config/reference-docs.ts`).
 * Plugins add their own sections (`channels.<id>`, `hooks.<preset>`) through `buildConfigSchema`.
 */

export const gatewaySchema = z
  .object({
    host: z.string().default('127.0.0.1').describe('Address to listen on; keep it on loopback unless a trusted proxy is in front.'),
    port: z.number().int().min(0).max(65535).default(8787).describe('Port to listen on (0 picks a free one).'),
    publicUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "The address people and other services reach herald at (https://herald.example.com; behind a TLS proxy, the proxy's; the same on every replica): an MCP server's sign-in comes back to <publicUrl>/oauth/callback (the redirect URI to register for a client of tools.mcpServers.<name>.oauth.clientId), and with an https URL herald's OAuth client id is its metadata document, <publicUrl>/oauth/client-metadata.json. Unset: http://<host>:<port>.",
      ),
    auth: z
      .object({ token: z.string().min(16).optional().describe('Bearer token of the admin API (/admin).') })
      .strict()
      .default({})
      .describe('Gateway (operator) authentication.'),
    trustedProxies: z
      .array(z.string().refine(isCidr, 'an IP address or CIDR, e.g. 10.0.0.0/8 or fd00::/8'))
      .default([])
      .describe(
        'Reverse proxies (IP addresses or CIDRs) whose X-Forwarded-For / Forwarded headers name the client, for the failed-auth limits and logs; from any other peer those headers are ignored.',
      ),
    log: z
      .object({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
          .default('info')
          .describe('Least severe level logged; HERALD_LOG_LEVEL overrides it. debug adds /healthz and /readyz requests.'),
        verboseErrors: z
          .boolean()
          .default(false)
          .describe(
            'Adds error messages, stacks and session keys to log lines. Off by default because they can quote payload values (a template\'s cast error, a transform\'s exception); turn on only to debug, on a log sink you trust with payloads.',
          ),
      })
      .strict()
      .default({ level: 'info', verboseErrors: false })
      .describe('Logs: JSON lines on stdout; their level and what they may carry.'),
    metrics: z
      .object({
        enabled: z.boolean().default(true).describe('Serves GET /metrics (Prometheus text format, behind the gateway token) and counts requests, runs and heartbeats; false: 404 and no counting.'),
      })
      .strict()
      .default({ enabled: true })
      .describe('Prometheus metrics.'),
    console: z
      .object({
        enabled: z.boolean().default(true).describe('Serves the operator console at /console (signed in with gateway.auth.token; without a token nobody can sign in).'),
        sessionHours: z.number().positive().max(24 * 30).default(12).describe('How long a console sign-in lasts, in hours.'),
      })
      .strict()
      .default({ enabled: true, sessionHours: 12 })
      .describe('The operator console.'),
  })
  .strict();

export const hooksSchema = z
  .object({
    enabled: z.boolean().default(false).describe('Turns the webhook surface on.'),
    token: z
      .string()
      .min(1)
      .optional()
      .describe('The hook token; required when enabled. Must differ from the gateway token and API keys. Shorter than 16 characters: a warning on a loopback gateway.host, refused on any other.'),
    // plain segments only: `:` or `*` would turn the prefix into a route pattern (`/*` shadows every route)
    path: z
      .string()
      .transform(normaliseHooksPath)
      .pipe(z.string().regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'a path whose segments are made of letters, digits and . _ ~ -'))
      .default('/hooks')
      .describe('Path prefix of the webhook endpoints; a leading slash is added and repeated or trailing slashes removed ("/" is refused).'),
    maxBodyBytes: z.number().int().positive().default(262144).describe('Largest accepted request body, declared or streamed (413 above).'),
    bodyTimeoutMs: z.number().int().positive().default(10000).describe('A body that stops arriving for this long gets 408.'),
    presets: z
      .array(
        z.union([
          z.string().min(1),
          z
            .object({ name: z.string().min(1).describe('The preset.') })
            .catchall(z.unknown())
            .describe("A preset with options; the preset's own schema checks them (see docs/presets.md)."),
        ]),
      )
      .default([])
      .describe('Mapping presets to enable, by name or with options, e.g. ["gmail", "github", { name: "stripe", secret: "${STRIPE_WEBHOOK_SECRET}", agentId: "billing" }]; their mappings come after mappingsDir\'s, so a mapping of yours on the same path wins.'),
    mappings: z.array(mappingSchema).default([]).describe('Custom hook mappings, tried in order before mappingsDir and presets.'),
    mappingsDir: z.string().default('./mappings').describe('Folder of mapping files (.yaml, .yml, .json, .json5), loaded in name order.'),
    transformsDir: z.string().default('./transforms').describe("Folder transform modules are loaded from (never outside it), inside the config file's folder: relative to it; without a ./transforms folder there, OpenClaw's <config dir>/hooks/transforms (a relative name is also looked up inside that root). A relative path leaving the config's folder (.., a symlink out) refuses the start; an absolute one is taken as given."),
    transformTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(5000)
      .describe('Time limit of one transform call, counted from when it is queued for a worker; past it the worker running it is terminated and replaced, and the request gets 500 (TransformTimeout).'),
    transformMemoryMb: z
      .number()
      .int()
      .min(16)
      .default(128)
      .describe('Heap limit of each transform worker thread, in MB; a transform that needs more fails its request with 500 (TransformMemory) and its worker is replaced. Read at start.'),
    idempotencyTtlHours: z
      .number()
      .positive()
      .max(24 * 365)
      .default(24)
      .describe('How long an Idempotency-Key of a hook path is remembered (its stored response replayed), in hours.'),
    defaultSessionKey: z
      .string()
      .min(1)
      .optional()
      .describe('Session key of an agent run whose request and mapping give none (else hook:<run id>, keyed by the run); must match allowedSessionKeyPrefixes.'),
    completionIncludesReply: z
      .boolean()
      .default(false)
      .describe('Whether the completion a /agent request with waitForCompletion: true awaits also carries the run\'s reply text (`completion.reply`). Off, as in OpenClaw: the answer says how the run ended and whether its reply was delivered, never what it said.'),
    allowRequestSessionKey: z
      .boolean()
      .optional()
      .describe('Whether a /agent request body may choose its sessionKey. Unset: allowed (the interface documents the field); false: such a request gets 400, as in OpenClaw.'),
    allowedSessionKeyPrefixes: z
      .array(z.string())
      .optional()
      .describe('Case-insensitive prefixes every session key of a hook run must start with (request, mapping, default or generated); blank entries are ignored, none means no restriction. Without defaultSessionKey it must admit "hook:".'),
    allowedAgentIds: z
      .array(z.string())
      .optional()
      .describe('Agent ids a hook may target with agentId (400 otherwise); unset or containing "*" allows all, [] allows none.'),
    maxForEachItems: z
      .number()
      .int()
      .positive()
      .max(10_000)
      .default(200)
      .describe('Most items a mapping\'s forEach fans out to per request; the rest are dropped with a warning in the log.'),
    retainPayloads: z
      .boolean()
      .default(false)
      .describe("Retain every hook request's raw body and non-secret headers (auth, cookie and signature headers removed) for replay and backtests; a mapping's own retainPayloads overrides this."),
    retainFailedPayloads: z
      .boolean()
      .default(true)
      .describe("Retain the raw body and non-secret headers of a request whose mapping failed (schema, template, transform, respond, action), so it can be replayed once the mapping is fixed (POST /admin/receipts/{id}/replay); within hooks.retention like every retained payload. A mapping's own retainPayloads overrides this too."),
    retention: z
      .object({
        payloadTtlHours: z.number().positive().max(24 * 365).default(72).describe('How long a retained payload is kept, in hours.'),
        maxPayloadBytes: z.number().int().positive().default(262144).describe('A body larger than this is not retained (its receipt says so).'),
        maxTotalBytes: z.number().int().positive().default(67108864).describe('Retained bodies beyond this total are pruned, oldest first.'),
        receiptDays: z.number().positive().max(3650).default(30).describe('How long receipts (the log of every request, without bodies) are kept, in days.'),
        pruneEveryMinutes: z.number().positive().default(10).describe('How often retention pruning runs (also once at start).'),
      })
      .strict()
      .default({ payloadTtlHours: 72, maxPayloadBytes: 262144, maxTotalBytes: 67108864, receiptDays: 30, pruneEveryMinutes: 10 })
      .describe('Receipts and retained payloads: how long and how much.'),
  })
  .strict();

/** a spending limit: tokens per UTC day, cost per UTC calendar month (priced by models.prices), or both */
export const budgetSchema = z
  .object({
    tokensPerDay: z.number().int().positive().optional().describe('Most tokens (prompt and completion, every model) per UTC day; counted from the store, so across replicas.'),
    costPerMonth: z.number().positive().optional().describe('Most cost per UTC calendar month, at the prices of models.prices (a model without a price costs nothing).'),
  })
  .strict()
  .refine((b) => b.tokensPerDay !== undefined || b.costPerMonth !== undefined, { message: 'set tokensPerDay, costPerMonth or both' });
export type Budget = z.infer<typeof budgetSchema>;

export const agentSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, . _ -').describe('Agent id; the `model` of /v1/chat/completions.'),
    name: z.string().optional().describe('Display name.'),
    description: z.string().optional().describe('What this digital employee does.'),
    instructions: z.string().optional().describe('System instructions given to its model.'),
    model: z.string().optional().describe('Model ref of this agent; defaults to agents.defaults.model.'),
    default: z.boolean().optional().describe('Marks the default agent (runs hooks without agentId, and heartbeats); else the first of the list.'),
    retry: retryPolicySchema.optional().describe("Retry schedule of this agent's replies, over its channel's (a mapping's own wins)."),
    fallback: fallbackSchema.optional().describe(`${fallbackSchema.description} For this agent's replies (a mapping's own wins).`),
    vectorStores: z
      .array(z.string().regex(/^vs_[A-Za-z0-9_.-]+$/, 'a vector store id (vs_…)'))
      .optional()
      .describe("Vector stores (ids made by POST /v1/vector_stores) this agent searches besides its own knowledge; keys limited to the agent see them."),
    budget: budgetSchema.optional().describe("This agent's spending limit, over chat, responses, hook runs and heartbeats: past it the platform API answers 429 and a hook run fails at once."),
    tools: agentToolsSchema.optional().describe('The tools this agent may call: servers (tools.mcpServers names, "herald" for the built-ins), narrowed by allow and deny. Unset: none.'),
  })
  .strict();

/** `"<ref>"` or OpenClaw's `{ primary, fallbacks }`, read as one shape: the models a turn tries, in order. */
export const modelChoiceSchema = z
  .union([
    z.string(),
    z
      .object({
        primary: z.string().describe('The model tried first.'),
        fallbacks: z.array(z.string()).default([]).describe('Tried in order when the one before fails (an error or its share of the time limit).'),
      })
      .strict(),
  ])
  .transform((value) => (typeof value === 'string' ? { primary: value, fallbacks: [] as string[] } : value));
export type ModelChoice = z.output<typeof modelChoiceSchema>;

/** the allowlist as a list of refs, or OpenClaw's map `{ "<ref>": { alias } }` whose aliases work as model aliases */
const modelAllowlistSchema = z
  .union([
    z.array(z.string()),
    z.record(z.string(), z.object({ alias: z.string().min(1).optional().describe('A short name for this model.') }).passthrough()),
  ])
  .transform((value) =>
    Array.isArray(value)
      ? { refs: value, aliases: {} as Record<string, string> }
      : {
          refs: Object.keys(value),
          aliases: Object.fromEntries(Object.entries(value).flatMap(([ref, entry]) => (entry.alias ? [[entry.alias, ref]] : []))),
        },
  );

export const agentsSchema = z
  .object({
    defaults: z
      .object({
        model: modelChoiceSchema
          .prefault('embedded/extractive')
          .describe('Default model: a ref (<provider>/<model> or an alias), or { primary, fallbacks: [refs] } tried in order when one fails.'),
        models: modelAllowlistSchema
          .optional()
          .describe('When set, the only models a hook or mapping may override to: a list of refs, or a map { "<ref>": { alias } } whose aliases work as model aliases.'),
        thinking: z.enum(thinkingLevels).optional().describe('Default thinking level.'),
        timeoutSeconds: z
          .number()
          .positive()
          .max(MAX_TIMEOUT_SECONDS)
          .default(600)
          .describe(`Default time limit of an agent run (and the limit of a heartbeat turn), in seconds (at most ${MAX_TIMEOUT_SECONDS}, about 24 days).`),
        maxConcurrent: z.number().int().positive().default(4).describe('Agent runs in their model turn at once (per process); the rest wait queued. While turns answer at once (the embedded model), a process claims up to 4 times as many (8 times on PostgreSQL, where a separate claim costs more), the extra ones waiting for a turn; not while runs arrive faster than that (requests come first, the runs catch up after).'),
        leaseMs: z
          .number()
          .int()
          .min(1000)
          .default(30000)
          .describe(
            "How long a process holds a run, a heartbeat turn or a governed /mcp call it claimed without renewing it (it renews every third of this while working). On PostgreSQL a crashed replica's runs are retaken by another replica, or by itself after a restart, once this runs out, and its /mcp calls recorded `interrupted`. On SQLite one process serves the database: a herald restarted after a crash takes its predecessor's runs back (and records its calls interrupted) at once, without waiting for this.",
          ),
        historyLimit: z
          .number()
          .int()
          .positive()
          .max(10_000)
          .default(50)
          .describe('How many earlier messages of a session the model sees in a turn (hook runs, chat conversations, heartbeats alike); older ones stay stored.'),
        budgetReserveTokens: z
          .number()
          .int()
          .positive()
          .default(1024)
          .describe('Answer tokens a model call of a key or agent with a budget reserves before it is made when its request sets no max_tokens (max_output_tokens): the prompt plus this counts against the budget while the call is in flight, and what it really spent replaces it after.'),
      })
      .strict()
      .prefault({})
      .describe('Defaults for every agent and run.'),
    list: z
      .array(agentSchema)
      .min(1)
      .default([{ id: 'main', name: 'Main' }])
      .describe('The digital employees; the one marked default (else the first) runs hooks without agentId and heartbeats.'),
  })
  .strict();

export const providerSchema = z
  .object({
    api: z.literal('openai').describe('Wire protocol: any OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp).'),
    baseUrl: z.string().url().describe('Base URL, e.g. https://api.openai.com/v1.'),
    apiKey: z.string().optional().describe('API key sent as Bearer.'),
  })
  .strict();

export const modelsSchema = z
  .object({
    providers: z.record(z.string(), providerSchema).default({}).describe('Model providers by name; `embedded` is built in.'),
    aliases: z.record(z.string(), z.string()).default({}).describe('Short names for model refs, e.g. { fast: "openai/gpt-4o-mini" }.'),
    prices: z
      .record(
        z.string(),
        z
          .object({
            input: z.number().nonnegative().describe('Cost of a million prompt (input) tokens.'),
            output: z.number().nonnegative().default(0).describe('Cost of a million completion (output) tokens.'),
          })
          .strict(),
      )
      .default({})
      .describe('Prices by model ref (`<provider>/<model>`), per million tokens, in the currency budgets use: what costPerMonth budgets and usage reports count.'),
    input: z
      .record(z.string(), z.array(z.enum(['text', 'image', 'audio'])).min(1))
      .default({})
      .describe(
        'What a model reads besides text, by model ref (`<provider>/<model>`) or for every model of a provider (`<provider>/*`), e.g. { "openai/gpt-4o": ["text", "image"] }: the images (and audio) of tool results are sent to it as content parts; a model not listed gets them described in text.',
      ),
  })
  .strict();

export const heartbeatSchema = z
  .object({
    every: duration.default('30m').describe('Period of the main-session heartbeat; "0" turns it off.'),
    ackMaxChars: z.number().int().nonnegative().default(300).describe('A reply that is only HEARTBEAT_OK within this length is not delivered.'),
    coalesceMs: z
      .number()
      .int()
      .nonnegative()
      .max(60_000)
      .default(250)
      .describe('Wakes and runs asking for a heartbeat within this window share one turn.'),
  })
  .strict();

const DEFAULT_SQLITE = './data/herald.db';

const postgresStorageSchema = z
  .object({
    url: z.string().min(1).describe('PostgreSQL connection URL, e.g. "postgres://herald@db:5432/herald" or "${DATABASE_URL}".'),
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier (letters, digits, _; at most 63)')
      .optional()
      .describe("Schema holding herald's tables, created if missing, so several deployments can share one database (default: the connection's own, normally public)."),
    poolSize: z.number().int().positive().max(1000).optional().describe('Most connections this process opens (default 10).'),
  })
  .strict();

/**
 * One of two adapters. Declared as one object with both keys optional (not a union) so a fault
 * inside `postgres` is reported at its field, not as an unknown key of the sqlite branch;
 * the output is the union every caller narrows with `'sqlite' in storage`.
 */
export const storageSchema = z
  .object({
    sqlite: z.string().optional().describe(`SQLite database file (":memory:" for none). The default store: embedded, one process (default "${DEFAULT_SQLITE}").`),
    postgres: postgresStorageSchema.optional().describe('PostgreSQL instead of SQLite: several `herald serve` replicas may share one database.'),
  })
  .strict()
  .refine((s) => s.sqlite === undefined || s.postgres === undefined, { message: 'set either sqlite or postgres, not both' })
  .transform((s): { sqlite: string } | { postgres: PostgresStorageOptions } => (s.postgres ? { postgres: s.postgres } : { sqlite: s.sqlite ?? DEFAULT_SQLITE }));
export type StorageConfig = z.output<typeof storageSchema>;
export type PostgresStorageOptions = z.infer<typeof postgresStorageSchema>;

const apiKeyName = z.string().min(1).describe('Name of the key, for logs and `herald keys`.');
const apiKeyAgents = z.array(z.string()).optional().describe('When set, the only agent ids this key may use.');
const apiKeyBudget = budgetSchema.optional().describe("This key's spending limit, over every /v1 call: past it the key is answered 429 until the budget resets.");
const apiKeyTools = agentToolsSchema
  .optional()
  .describe("The tools this key may call itself over /mcp (platform.mcp): servers (tools.mcpServers names, \"herald\" for the built-ins) narrowed by allow and deny, requireApproval as an agent's. Unset: none (the key still asks its agents).");
const apiKeyGroup = z
  .string()
  .min(1)
  .optional()
  .describe('Keys of one group share their conversations (`conversation_id`) and stored responses (`/v1/responses/:id`, `previous_response_id`); without it they are the key\'s own, and another key gets 404.');
export const apiKeySchema = z.union([
  z.object({ name: apiKeyName, key: z.string().min(16).describe('The key itself (at least 16 characters).'), agents: apiKeyAgents, budget: apiKeyBudget, group: apiKeyGroup, tools: apiKeyTools }).strict(),
  z
    .object({
      name: apiKeyName,
      keyHash: z.string().regex(/^[a-f0-9]{64}$/, 'a sha256 hex digest').describe('sha256 hex digest of the key, instead of the key.'),
      agents: apiKeyAgents,
      budget: apiKeyBudget,
      group: apiKeyGroup,
      tools: apiKeyTools,
    })
    .strict(),
]);

export const knowledgeLimitsSchema = z
  .object({
    maxInflatedEntryBytes: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 * 1024)
      .describe('Largest size one entry of an uploaded archive (a DOCX is a ZIP) may inflate to; a zip bomb is refused with 413 before it is parsed.'),
    maxTextChars: z
      .number()
      .int()
      .positive()
      .default(50_000_000)
      .describe('Longest text one document may yield once extracted (a CSV row or JSON leaf carries its column or key path, so text may outgrow the file): 413 above.'),
    maxChunks: z.number().int().positive().default(50_000).describe('Most chunks one document may be cut into: 413 above.'),
    parseTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(60_000)
      .describe('Time limit of reading and chunking one document (in a worker thread, which is stopped past it), counted from when a worker takes it, not while it waits its turn: 422.'),
    workerMemoryMb: z
      .number()
      .int()
      .min(64)
      .default(256)
      .describe(
        'Heap limit of a parse worker thread (MB, its young and old generations together), enforced by V8 in the worker: a document needing more is refused with 422 naming this key, before parsing when its size already tells (a DOCX takes at least 0.75 KB per XML element), else when the worker reaches the limit and is replaced. A worker whose heap is still past an eighth of this after its parse and a full collection ends then, returning the memory.',
      ),
    workers: z.number().int().positive().max(64).default(1).describe('Worker threads reading documents at once; further uploads wait their turn.'),
    maxQueued: z
      .number()
      .int()
      .positive()
      .default(64)
      .describe('Documents that may wait for a parse worker: past it an upload is answered 503 (`server_error`, Retry-After) naming this key, and a vector store file waits its turn again; never a fault of the file.'),
    maxFilesInProgressPerKey: z
      .number()
      .int()
      .positive()
      .default(32)
      .describe('Vector store files one API key may have in progress (added, not yet completed) in one herald process: adding more is answered 429 with Retry-After naming this key, and nothing is added. Files are read `workers` at a time, their bytes loaded only then.'),
    maxFilesInProgress: z
      .number()
      .int()
      .positive()
      .default(256)
      .describe('Vector store files in progress in one herald process, all keys together: past it, adding more is answered 429 with Retry-After naming this key. Files a previous process left in progress are taken up at start whatever this limit, `workers` at a time.'),
    embeddings: z
      .object({
        model: z
          .string()
          .min(1)
          .describe('`<provider>/<model>` (or an alias) of an OpenAI-compatible provider, e.g. openai/text-embedding-3-small: its POST /embeddings, with the base URL and key of models.providers.'),
      })
      .strict()
      .optional()
      .describe('Hybrid retrieval: chunks are embedded at upload (a failure refuses the upload with 502) and questions at search, and the vector ranking is fused with the full-text one (reciprocal rank fusion); an embeddings failure at search falls back to full text with a log line. Unset: full text only.'),
  })
  .strict();

export const platformSchema = z
  .object({
    apiKeys: z
      .array(apiKeySchema)
      .default([])
      .describe('Platform API keys: {name, key} or {name, keyHash} (sha256 hex), optionally limited to `agents`.'),
    rateLimit: z
      .object({
        requestsPerMinute: z.number().int().positive().default(600).describe('Requests one key may make per minute.'),
      })
      .strict()
      .default({ requestsPerMinute: 600 })
      .describe('Per-key rate limit of /v1.'),
    maxUploadBytes: z.number().int().positive().default(20 * 1024 * 1024).describe('Largest knowledge upload (413 above).'),
    knowledge: knowledgeLimitsSchema
      .default(defaultsOf(knowledgeLimitsSchema))
      .describe('Limits on reading an uploaded document, each refused with a 413 or 422 naming it; documents are read off the main thread.'),
    embeddings: z
      .object({
        models: z
          .array(z.string().min(1))
          .default([])
          .describe(
            'Embeddings models POST /v1/embeddings serves: `<provider>/<model>` refs (or aliases) of OpenAI-compatible providers. A request\'s `model` names one by its ref, an alias of it, or its bare model name (e.g. text-embedding-3-small). platform.knowledge.embeddings.model is served too.',
          ),
      })
      .strict()
      .prefault({})
      .describe('POST /v1/embeddings: which embeddings models API keys may call.'),
    streamPingMs: z
      .number()
      .int()
      .positive()
      .default(15000)
      .describe('While a streamed chat completion waits for its model, an SSE `: ping` comment is sent this often, the first within one period (keeps proxies from closing it).'),
    mcp: mcpEndpointSchema.prefault({}).describe('herald as an MCP server at /mcp: the agents and tools each API key may use, to any MCP client (docs/mcp-server.md).'),
  })
  .strict();

export const deliverySchema = z
  .object({
    maxAttempts: z.number().int().positive().default(20).describe('Attempts of one delivery before it fails for good (network errors, 5xx and 429 are retried; a permanent error fails at once); the default rides out about an hour of a channel being down. channels.<id>.retry, an agent\'s or a mapping\'s `retry` override it.'),
    baseDelayMs: z.number().int().nonnegative().default(2000).describe('Delay before the first retry; doubles each attempt, with jitter (the default of `retry.initialMs`).'),
    maxDelayMs: z.number().int().positive().default(300000).describe('Longest computed delay between two attempts. A platform\'s own Retry-After is honoured whole, even when longer.'),
    requestTimeoutMs: z.number().int().positive().default(30000).describe('Time limit of each HTTP request to a platform (each part of a split message, a token request: each gets its own).'),
    leaseMs: z.number().int().positive().default(120000).describe('How long a worker holds a delivery it claimed; a crashed worker\'s claim is retaken after this.'),
    concurrency: z.number().int().positive().default(4).describe('Deliveries sent at once.'),
  })
  .strict();

export const coreConfigShape = {
  gateway: gatewaySchema.default(defaultsOf(gatewaySchema)).describe('The HTTP listener.'),
  hooks: hooksSchema.default(defaultsOf(hooksSchema)).describe('The webhook surface.'),
  agents: agentsSchema.default(defaultsOf(agentsSchema)).describe('The digital employees and their defaults.'),
  models: modelsSchema.default(defaultsOf(modelsSchema)).describe('Model providers and aliases.'),
  heartbeat: heartbeatSchema.default(defaultsOf(heartbeatSchema)).describe('The main-session heartbeat.'),
  storage: storageSchema.default(defaultsOf(storageSchema)).describe('Where herald keeps what it accepted.'),
  platform: platformSchema.default(defaultsOf(platformSchema)).describe('The /v1 platform API.'),
  delivery: deliverySchema.default(defaultsOf(deliverySchema)).describe('The durable outbox that sends replies to chat channels.'),
  tools: toolsSchema.default(defaultsOf(toolsSchema)).describe('Tools: MCP servers the agents may call, the limits of a turn\'s tool calls, and approvals by a person (docs/tools.md).'),
  alerts: alertsSchema.default(defaultsOf(alertsSchema)).describe('Alerts: conditions an operator hears about (a delivery failed for good, failing runs, a silent source, a stale queue, an unhealthy watcher, an unreachable database), sent to channel targets once per incident, with a resolved notice when it clears.'),
  schedules: schedulesSchema.default(defaultsOf(schedulesSchema)).describe('Schedules: jobs that fire at a time, every period or by a cron expression, each an agent run or a main-session event (docs/schedules.md).'),
  tracing: tracingSchema.prefault({}).describe('Traces (OpenTelemetry): one request followed from the sender to the reply in the operator\'s tracing stack; off unless OTEL_EXPORTER_OTLP_ENDPOINT or `enabled` says otherwise (docs/operations.md#tracing).'),
  channels: z.record(z.string(), z.unknown()).default({}).describe('Channel plugin settings by plugin id; each plugin declares its own schema.'),
  plugins: z.array(z.string()).default([]).describe('Third-party plugins: paths (relative to this file) or package names.'),
};

export const coreConfigSchema = z.object(coreConfigShape).strict();
export type HeraldConfig = z.output<typeof coreConfigSchema>;
export type HeraldConfigInput = z.input<typeof coreConfigSchema>;
export type KnowledgeLimits = z.output<typeof knowledgeLimitsSchema>;
