/**
 * The benchmark's yardstick: a raw `node:http` server doing per request what herald's
 * `/hooks/wake` and `/hooks/agent` do up to the response, and nothing more: bearer auth
 * compared in constant time, the body read under the same size limit (declared and streamed),
 * JSON parsed, the fields validated, and the same durable insert into SQLite (better-sqlite3,
 * WAL): an events row (with the duplicate skip and the 20-pending cap) for wake, a runs row
 * for agent. On `/hooks/agent` it never runs an agent: that is the difference the benchmark reports;
 * `/hooks/agent-executed` inserts the same row and then executes the run as a raw server would
 * (bench/baseline-runs.ts: claim, history, an answer, the completion's writes). SQLite writes
 * go through the same group commit as herald's (bench/baseline-group-commit.ts): one commit per
 * event-loop turn, the response only after it. `/hooks/mapped-wake` and `/hooks/mapped-agent`
 * do a mapped hook's work (bench/baseline-mapped.ts: ajv schema, JSONata templates) first.
 *
 * `/hooks/github` (with BASELINE_GITHUB) is a signed webhook: no token, GitHub's signature checked
 * over the raw body, the preset's issue templates (bench/baseline-signed.ts), then in one group
 * commit the delivery's idempotency record (the same row herald keeps, done, with its answer) and
 * the run, executed after the response as `/hooks/agent-executed`'s are (herald executes every
 * delivery's run); a delivery id seen before is answered from its record.
 *
 * Every request then leaves a receipt row, written after the response as herald writes it
 * (bench/baseline-receipts.ts): the same table, columns and group commit.
 *
 * With BASELINE_PG_URL it writes the same records to PostgreSQL instead (schema BASELINE_PG_SCHEMA;
 * BASELINE_PG_TABLES=own|herald), the wakes, receipts and runs batched as herald's PostgreSQL
 * adapter batches them (a turn's wakes in one call of the events function, its receipts in one
 * INSERT, each with one in flight; its runs and their sessions' summaries in one INSERT, each turn's
 * sent at once; all in autocommit), and executes its runs there too (bench/baseline-pg-store.ts).
 *
 * Self-contained on purpose (no herald imports), so it measures raw node:http, not herald.
 * Env: BASELINE_DB (file), BASELINE_TOKEN, BASELINE_PORT (default 0), BASELINE_MAX_BODY_BYTES,
 * BASELINE_PG_URL, BASELINE_PG_SCHEMA, BASELINE_PG_TABLES, BASELINE_GITHUB (JSON: GithubBaselineConfig, SQLite only).
 * Prints `baseline listening on http://127.0.0.1:<port>` once it listens.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { groupCommit } from './baseline-group-commit.js';
import { INSERT_RECEIPT_SQLITE, INSERT_SIGNED_RECEIPT_SQLITE, RECEIPTS_TABLE, receiptValues, signedReceiptValues, uuidV7, type BaselineReceipt } from './baseline-receipts.js';
import { githubReceiver, requestHash, type GithubBaselineConfig } from './baseline-signed.js';
import { mappedHooks, SchemaFault } from './baseline-mapped.js';
import { pgBaselineStore } from './baseline-pg-store.js';
import { inHeraldLayout, RUN_TABLES, runExecutor } from './baseline-runs.js';

const dbFile = process.env.BASELINE_DB ?? './data/baseline.db';
const token = process.env.BASELINE_TOKEN ?? '';
const port = Number(process.env.BASELINE_PORT ?? 0);
const maxBodyBytes = Number(process.env.BASELINE_MAX_BODY_BYTES ?? 262144);
const bodyIdleMs = 10_000;
if (token.length < 16) throw new Error('BASELINE_TOKEN must be set (16+ characters)');

const MAX_PENDING = 20;
const WAKE_MODES = ['now', 'next-heartbeat'];
const THINKING = ['off', 'minimal', 'low', 'medium', 'high'];
const CHANNELS = ['last', 'whatsapp', 'telegram', 'discord', 'slack', 'mattermost', 'signal', 'imessage', 'msteams', 'webhook'];

const pgUrl = process.env.BASELINE_PG_URL;
const pgSchema = process.env.BASELINE_PG_SCHEMA ?? 'baseline';
/** BASELINE_PG_TABLES: `own` (created by the baseline, the default) or `herald` (a schema herald's migrations made) */
function pgTables(): 'own' | 'herald' {
  const tables = process.env.BASELINE_PG_TABLES ?? 'own';
  if (tables !== 'own' && tables !== 'herald') throw new Error('BASELINE_PG_TABLES must be own or herald');
  return tables;
}

interface RunRow {
  id: string;
  name: string;
  sessionKey: string;
  message: string;
  /** as JSON */
  action: string;
  mappingId: string;
  deliver: boolean;
}

/** herald's idempotency records live this long (idempotencyTtlHours), a holder of a key presumed dead after this (transformTimeoutMs + 60 s): src/gateway/gateway.ts */
const KEY_TTL_MS = 24 * 3600_000;
const KEY_LOCK_MS = 65_000;

interface BaselineStore {
  /** the id of the event added, undefined when it was a duplicate of the one before */
  enqueueEvent(text: string): Promise<number | undefined>;
  /** `action` as JSON; its mapping and whether its reply is delivered are columns of their own, as herald's */
  insertRun(id: string, name: string, sessionKey: string, message: string, action: string, mappingId: string, deliver: boolean): Promise<void> | void;
  /** `/hooks/agent-executed`: the runs inserted are executed too (bench/baseline-runs.ts, bench/baseline-pg-runs.ts) */
  executeRuns?(): void;
  /**
   * A signed delivery's run, once per `key`: its idempotency record (done, with the 202 answer)
   * and the run in one group commit; a key seen before inserts nothing and gives its run's id
   */
  insertRunOnce?(key: { scope: string; key: string; hash: string }, run: RunRow): Promise<{ runId: string; replayed: boolean }>;
  recordReceipt(receipt: BaselineReceipt): Promise<void>;
  close(): Promise<void> | void;
}

function sqliteStore(): BaselineStore {
  // herald's pragmas. The tables: a file the bench made with herald's migrations (its default: every
  // index and counting trigger herald writes, so the same rows cost the same), or, on a new file,
  // the tables alone with the indexes the baseline's own reads need (BENCH_BASELINE_SCHEMA=own)
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      id INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, text TEXT NOT NULL,
      status TEXT NOT NULL, created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS events_session_status ON events (session, status, id);
    CREATE INDEX IF NOT EXISTS events_session_id ON events (session, id);
    CREATE TABLE IF NOT EXISTS runs (
      id TEXT PRIMARY KEY, status TEXT NOT NULL, agent_id TEXT NOT NULL, name TEXT NOT NULL,
      session_key TEXT NOT NULL, message TEXT NOT NULL, action TEXT NOT NULL, mapping_id TEXT, deliver INTEGER NOT NULL DEFAULT 1,
      reply TEXT, error TEXT, created_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER, waiting INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS runs_ready ON runs (waiting) WHERE waiting = 0 AND status IN ('queued', 'running');
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      scope TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, status TEXT NOT NULL, run_id TEXT NOT NULL,
      response_status INTEGER, response_body TEXT, created_at INTEGER NOT NULL, locked_until INTEGER NOT NULL, expires_at INTEGER NOT NULL,
      PRIMARY KEY (scope, key)
    );
    ${RECEIPTS_TABLE}
  `);
  // herald's file has its own transcript tables (baseline-runs.ts): an index of ours there would be work herald does not do
  if (!inHeraldLayout(db)) db.exec(RUN_TABLES);

  const lastEvent = db.prepare<[string], { text: string; status: string }>('SELECT text, status FROM events WHERE session = ? ORDER BY id DESC LIMIT 1');
  // its id read as herald reads it (events-repo.ts), from the insert's rowid: RETURNING would keep
  // the row in a table of its own first (a temporary B-tree opened and closed per event)
  const insertEvent = db.prepare("INSERT OR FAIL INTO events (session, text, status, created_at) VALUES (?, ?, 'pending', ?)");
  const pendingIds = db.prepare<[string], { id: number }>("SELECT id FROM events WHERE session = ? AND status = 'pending' ORDER BY id");
  const drop = db.prepare("UPDATE OR FAIL events SET status = 'dropped' WHERE id = ? AND status = 'pending'");
  const insertRun = db.prepare(
    `INSERT OR FAIL INTO runs (id, status, agent_id, name, session_key, message, action, mapping_id, deliver, reply, error, created_at, started_at, finished_at)
     VALUES (?, 'queued', 'main', ?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, NULL)`,
  );

  const insertReceipt = db.prepare(INSERT_RECEIPT_SQLITE);
  const insertSignedReceipt = db.prepare(INSERT_SIGNED_RECEIPT_SQLITE);
  const keyRunId = db.prepare<[string, string], { run_id: string }>('SELECT run_id FROM idempotency_keys WHERE scope = ? AND key = ?');
  const insertKey = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, request_hash, status, run_id, response_status, response_body, created_at, locked_until, expires_at)
     VALUES (?, ?, ?, 'done', ?, 202, ?, ?, ?, ?)`,
  );

  const commit = groupCommit(db);
  // Each session's newest event and its pending ids, kept between group commits as herald's SQLite
  // store keeps them (src/store/sqlite/queue-memory.ts, one serving process per file): an enqueue
  // inserts and drops by id, without reading the newest event and counting the pending ones again.
  // Read from the table once per session; forgotten whenever a write is rolled back
  const queues = new Map<string, { lastText: string | undefined; lastOpen: boolean; pending: number[] }>();
  commit.onRollback(() => queues.clear());
  const queueOf = (session: string) => {
    let queue = queues.get(session);
    if (!queue) {
      const last = lastEvent.get(session);
      queue = { lastText: last?.text, lastOpen: last !== undefined && last.status !== 'dropped', pending: pendingIds.all(session).map((r) => r.id) };
      queues.set(session, queue);
    }
    return queue;
  };
  // a group commit's work: atomic as one (baseline-group-commit.ts); the memory changes once its writes succeeded
  const enqueueEvent = (session: string, text: string, maxPending: number): number | undefined => {
    const queue = queueOf(session);
    if (queue.lastOpen && queue.lastText === text) return undefined;
    const id = Number(insertEvent.run(session, text, Date.now()).lastInsertRowid);
    const over = Math.min(queue.pending.length, Math.max(0, queue.pending.length + 1 - maxPending));
    for (let i = 0; i < over; i++) drop.run(queue.pending[i]!);
    queue.pending.splice(0, over);
    queue.pending.push(id);
    queue.lastText = text;
    queue.lastOpen = true;
    return id;
  };
  const executor = runExecutor(db, commit, enqueueEvent);
  return {
    enqueueEvent: (text) => commit(() => enqueueEvent('main', text, MAX_PENDING)),
    executeRuns: () => executor.poke(),
    insertRun: (id, name, sessionKey, message, action, mappingId, deliver) =>
      commit(() => void insertRun.run(id, name, sessionKey, message, action, mappingId, deliver ? 1 : 0, Date.now())),
    insertRunOnce: (key, run) =>
      commit(() => {
        const seen = keyRunId.get(key.scope, key.key);
        if (seen) return { runId: seen.run_id, replayed: true };
        const now = Date.now();
        insertKey.run(key.scope, key.key, key.hash, run.id, JSON.stringify({ ok: true, runId: run.id }), now, now + KEY_LOCK_MS, now + KEY_TTL_MS);
        insertRun.run(run.id, run.name, run.sessionKey, run.message, run.action, run.mappingId, run.deliver ? 1 : 0, now);
        return { runId: run.id, replayed: false };
      }),
    recordReceipt: (receipt) =>
      commit(() => void (receipt.signed ? insertSignedReceipt.run(...signedReceiptValues(receipt)) : insertReceipt.run(...receiptValues(receipt)))),
    close: () => void db.close(),
  };
}

const store: BaselineStore = pgUrl ? await pgBaselineStore(pgUrl, pgSchema, pgTables()) : sqliteStore();

class HttpFault extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const expectedDigest = createHash('sha256').update(token).digest();
function authorized(header: string | undefined): boolean {
  const match = header && /^Bearer\s+(.+)$/i.exec(header.trim());
  const given = match ? match[1]!.trim() : '';
  const digest = createHash('sha256').update(given).digest();
  return timingSafeEqual(digest, expectedDigest) && given.length === token.length;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBodyBytes) return Promise.reject(new HttpFault(413, 'payload too large'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const idle = setTimeout(() => fail(new HttpFault(408, 'request body timeout')), bodyIdleMs);
    const fail = (error: Error) => {
      clearTimeout(idle);
      req.removeAllListeners('data');
      req.resume();
      reject(error);
    };
    req.on('data', (chunk: Buffer) => {
      idle.refresh();
      size += chunk.byteLength;
      if (size > maxBodyBytes) return fail(new HttpFault(413, 'payload too large'));
      chunks.push(chunk);
    });
    req.on('end', () => {
      clearTimeout(idle);
      resolve(Buffer.concat(chunks, size));
    });
    req.on('error', fail);
  });
}

function parseObject(bytes: Buffer): Record<string, unknown> {
  const text = bytes.toString('utf8').trim();
  let value: unknown = {};
  if (text) {
    try {
      value = JSON.parse(text);
    } catch {
      throw new HttpFault(400, 'invalid JSON body');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new HttpFault(400, 'body must be a JSON object');
  return value as Record<string, unknown>;
}

const nonBlank = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
function optional(body: Record<string, unknown>, field: string, ok: (v: unknown) => boolean, message: string): void {
  const v = body[field];
  if (v !== undefined && v !== null && !ok(v)) throw new HttpFault(400, `${field} ${message}`);
}
const isString = (v: unknown) => typeof v === 'string';

interface Outcome {
  status: number;
  body: unknown;
  eventId?: number;
  runId?: string;
}

async function wake(body: Record<string, unknown>): Promise<Outcome> {
  if (!nonBlank(body.text)) throw new HttpFault(400, 'text is required (a non-blank string)');
  optional(body, 'mode', (v) => WAKE_MODES.includes(v as string), 'must be one of now, next-heartbeat');
  const mode = (body.mode as string | undefined) ?? 'now';
  const eventId = await store.enqueueEvent(body.text.trim());
  return { status: 200, body: { ok: true, mode, eventOutcome: eventId === undefined ? 'coalesced' : 'queued' }, eventId };
}

async function agent(body: Record<string, unknown>, mappingId: string, execute = false): Promise<Outcome> {
  if (!nonBlank(body.message)) throw new HttpFault(400, 'message is required (a non-blank string)');
  optional(body, 'name', isString, 'must be a string');
  optional(body, 'sessionKey', (v) => typeof v === 'string' && v.length > 0 && v.length <= 512, 'must be a non-empty string');
  optional(body, 'wakeMode', (v) => WAKE_MODES.includes(v as string), 'must be one of now, next-heartbeat');
  optional(body, 'deliver', (v) => typeof v === 'boolean', 'must be a boolean');
  optional(body, 'channel', (v) => CHANNELS.includes(v as string), `must be one of ${CHANNELS.join(', ')}`);
  optional(body, 'to', isString, 'must be a string');
  optional(body, 'model', isString, 'must be a string');
  optional(body, 'thinking', (v) => THINKING.includes(v as string), `must be one of ${THINKING.join(', ')}`);
  optional(body, 'timeoutSeconds', (v) => typeof v === 'number' && v > 0 && Number.isFinite(v), 'must be a positive number');
  // time-ordered, as herald's run ids; a made-up session key is its first run's, as herald's
  const id = uuidV7();
  const name = (typeof body.name === 'string' && body.name.trim()) || 'Hook';
  const sessionKey = (body.sessionKey as string | undefined) ?? `hook:${id}`;
  const action = {
    kind: 'agent',
    message: body.message,
    name,
    sessionKey: body.sessionKey,
    wakeMode: body.wakeMode ?? 'now',
    deliver: body.deliver ?? true,
    channel: body.channel ?? 'last',
    to: body.to,
    model: body.model,
    thinking: body.thinking,
    timeoutSeconds: body.timeoutSeconds,
    allowUnsafeExternalContent: false,
    source: { mappingId, path: mappingId },
  };
  await store.insertRun(id, name, sessionKey, body.message, JSON.stringify(action), mappingId, action.deliver === true);
  if (execute) store.executeRuns?.();
  return { status: 202, body: { ok: true, runId: id }, runId: id };
}

const mapped = mappedHooks();
type Handler = (body: Record<string, unknown>, req: http.IncomingMessage) => Promise<Outcome>;
/** the mapping id herald's receipt names for each path */
const mappingIds: Record<string, string> = { '/hooks/wake': 'wake', '/hooks/agent': 'agent', '/hooks/agent-executed': 'agent', '/hooks/mapped-wake': 'bench-wake', '/hooks/mapped-agent': 'bench-agent', '/hooks/mapped-agent-executed': 'bench-agent' };
const routes: Record<string, Handler> = {
  '/hooks/wake': wake,
  '/hooks/agent': (body) => agent(body, 'agent'),
  // the same, and the run executed after the response (bench/baseline-runs.ts)
  '/hooks/agent-executed': (body) => agent(body, 'agent', true),
  // a mapped hook: schema and templates first, then the same action as /wake or /agent
  '/hooks/mapped-wake': async (payload, req) => wake({ text: await mapped.wake({ payload, headers: req.headers, path: 'mapped-wake' }) }),
  '/hooks/mapped-agent': async (payload, req) => {
    const { message, name } = await mapped.agent({ payload, headers: req.headers, path: 'mapped-agent' });
    return agent({ message, name, deliver: false }, 'bench-agent');
  },
  '/hooks/mapped-agent-executed': async (payload, req) => {
    const { message, name } = await mapped.agent({ payload, headers: req.headers, path: 'mapped-agent' });
    return agent({ message, name, deliver: false }, 'bench-agent', true);
  },
};

const github = process.env.BASELINE_GITHUB ? githubReceiver(JSON.parse(process.env.BASELINE_GITHUB) as GithubBaselineConfig) : undefined;
const SIGNED_PATH = '/hooks/github';

/** `/hooks/github`: the signature over the raw body admits it (no token), then the preset's issue run, once per delivery id */
async function signedGithub(req: http.IncomingMessage, res: http.ServerResponse): Promise<Partial<BaselineReceipt> & { bodyBytes: number }> {
  if (req.method !== 'POST') {
    send(res, 405, { ok: false, error: 'method not allowed' }, { Allow: 'POST' });
    return { status: 405, errorCode: 'HERALD_METHOD_NOT_ALLOWED', bodyBytes: 0 };
  }
  const bytes = await readBody(req);
  if (!github!.verified(req.headers['x-hub-signature-256'], bytes)) {
    send(res, 401, { ok: false, error: 'unauthorized' });
    return { status: 401, errorCode: 'HERALD_UNAUTHORIZED', bodyBytes: bytes.byteLength };
  }
  const signed = { signature: github!.signature, idempotencyKey: null };
  const issue = await github!.route({ payload: parseObject(bytes), headers: req.headers, path: 'github' });
  if (!issue) {
    res.writeHead(204).end();
    return { status: 204, outcome: 'skip', bodyBytes: bytes.byteLength, signed };
  }
  const action = {
    kind: 'agent', name: issue.name, agentId: 'main', sessionKey: issue.sessionKey, wakeMode: 'now', deliver: true, channel: 'last',
    allowUnsafeExternalContent: false, source: { mappingId: issue.mappingId, path: 'github' },
  };
  const { runId } = await store.insertRunOnce!(
    { scope: 'github', key: issue.idempotencyKey, hash: requestHash('github', bytes) },
    { id: uuidV7(), name: issue.name, sessionKey: issue.sessionKey, message: issue.message, action: JSON.stringify(action), mappingId: issue.mappingId, deliver: true },
  );
  send(res, 202, { ok: true, runId });
  // herald executes every delivery's run (the preset's agent action): so does the baseline, as on /hooks/agent-executed
  store.executeRuns?.();
  return { status: 202, mappingId: issue.mappingId, outcome: 'agent', runId, bodyBytes: bytes.byteLength, signed: { ...signed, idempotencyKey: issue.idempotencyKey } };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, path: string, handler: Handler | undefined): Promise<Partial<BaselineReceipt> & { bodyBytes: number }> {
  if (req.method !== 'POST') {
    send(res, 405, { ok: false, error: 'method not allowed' }, { Allow: 'POST' });
    return { status: 405, errorCode: 'HERALD_METHOD_NOT_ALLOWED', bodyBytes: 0 };
  }
  if (!authorized(req.headers.authorization)) {
    send(res, 401, { ok: false, error: 'unauthorized' });
    return { status: 401, errorCode: 'HERALD_UNAUTHORIZED', bodyBytes: 0 };
  }
  if (!handler) {
    send(res, 404, { ok: false, error: 'not found' });
    return { status: 404, errorCode: 'HERALD_MAPPING_NOT_FOUND', bodyBytes: 0 };
  }
  const bytes = await readBody(req);
  const result = await handler(parseObject(bytes), req);
  send(res, result.status, result.body);
  return {
    status: result.status,
    mappingId: mappingIds[path] ?? null,
    outcome: result.status === 200 ? 'wake' : 'agent',
    eventId: result.eventId ?? null,
    runId: result.runId ?? null,
    bodyBytes: bytes.byteLength,
  };
}

const server = http.createServer(async (req, res) => {
  const receivedAt = Date.now();
  const started = performance.now();
  const requestId = randomUUID();
  res.setHeader('X-Request-Id', requestId);
  const path = (req.url ?? '').split('?')[0]!;
  let noted: Partial<BaselineReceipt> & { bodyBytes: number };
  try {
    noted = github && path === SIGNED_PATH ? await signedGithub(req, res) : await handle(req, res, path, routes[path]);
  } catch (error) {
    noted = { status: 500, errorCode: 'HERALD_INTERNAL', bodyBytes: 0 };
    if (error instanceof HttpFault) {
      noted.status = error.status;
      send(res, error.status, { ok: false, error: error.message });
    } else if (error instanceof SchemaFault) {
      noted.status = 400;
      send(res, 400, { ok: false, error: error.message });
    } else {
      process.stderr.write(`baseline: ${(error as Error).stack}\n`);
      send(res, 500, { ok: false, error: 'internal error' });
    }
  }
  // after the response, as herald's receipt middleware: a failure is logged, never the caller's
  store
    .recordReceipt({
      requestId,
      receivedAt,
      method: req.method ?? 'GET',
      // herald's path: the executed variant is herald's /hooks/agent
      path: path.replace(/^\/hooks\/?/, '').replace(/-executed$/, ''),
      mappingId: noted.mappingId ?? null,
      status: noted.status!,
      outcome: noted.status! >= 400 ? 'error' : noted.outcome!,
      errorCode: noted.errorCode ?? null,
      runId: noted.runId ?? null,
      eventId: noted.eventId ?? null,
      clientAddress: req.socket.remoteAddress ?? null,
      bodyBytes: noted.bodyBytes,
      latencyMs: performance.now() - started,
      ...(noted.signed && { signed: noted.signed }),
    })
    .catch((error) => process.stderr.write(`baseline: receipt not recorded: ${(error as Error).message}\n`));
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`baseline listening on http://127.0.0.1:${address.port}\n`);
});

const stop = () => {
  server.close(() => {
    void Promise.resolve(store.close()).finally(() => process.exit(0));
  });
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
