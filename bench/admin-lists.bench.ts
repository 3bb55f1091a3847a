import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { hasColumn } from './store-columns.js';
import { seedSessions } from './seed-sessions.js';
import { formatTable } from './table.js';
import { firstIdAt } from '../src/store/sqlite/time-keyed-rows.js';

/**
 * The admin lists on a large SQLite store: one page (50 rows, as the console asks) of each list
 * with each filter, through the store port, median of several pages. `ADMIN_ROWS` sets the number
 * of runs (default 200k; receipts, deliveries, events and session messages in proportion).
 * `ADMIN_ONLY=runs?mapping` keeps the cases whose name contains it.
 * `BENCH_BASELINE_ROOT=/path/to/other/checkout` measures that checkout's store too (before/after
 * in one run); a filter it does not have shows as n/a. `BENCH_HERALD_ROOT` overrides this checkout.
 *
 *   node --import tsx bench/admin-lists.bench.ts
 *   BENCH_BASELINE_ROOT=/work/main ADMIN_ROWS=200000 node --import tsx bench/admin-lists.bench.ts
 */

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAGE = 50;
const REPEAT = Number(process.env.ADMIN_REPEAT ?? 15);
const T0 = 1_750_000_000_000;
/**
 * A seeded row's id as herald makes them: beginning with its time's millisecond as a UUID v7
 * does (src/store/sqlite/time-keyed-rows.ts lists such rows from the primary key), then a readable tail
 */
const keyedId = (time: string, tail: string) => `printf('%08x-%04x-', ${time} / 65536, ${time} % 65536) || ${tail}`;
const seededRunId = (i: number) => `${firstIdAt(T0 + i * 1000)}-seed-${i}`;

type Browse = Record<string, (query: Record<string, unknown>) => Promise<unknown[]>>;
interface Opened {
  browse: Browse;
  receipts: { list: (query: Record<string, unknown>) => Promise<unknown[]> };
  close(): Promise<void>;
}

/** one list page: the store port's call, and whether it is new (a baseline without it shows n/a) */
interface Case {
  list: string;
  filter: string;
  query: Record<string, unknown>;
  /** the filter the baseline would ignore (answering unfiltered rows): not measured there */
  added?: boolean;
}

const at = (i: number) => T0 + i * 1000;

/** `ADMIN_ONLY=runs?mapping`: only the cases whose `list?filter` contains it (to profile one) */
function cases(rows: number): Case[] {
  const only = process.env.ADMIN_ONLY;
  return allCases(rows).filter((c) => !only || `${c.list}?${c.filter}`.includes(only));
}

function allCases(rows: number): Case[] {
  const mid = Math.floor(rows / 2);
  const hour = { since: at(mid), until: at(mid + 3600) };
  return [
    { list: 'runs', filter: '(none)', query: {} },
    { list: 'runs', filter: 'status=failed', query: { status: 'failed' } },
    { list: 'runs', filter: 'status=succeeded', query: { status: 'succeeded' } },
    // none in the seed: every run is finished
    { list: 'runs', filter: 'status=running (none)', query: { status: 'running' } },
    { list: 'runs', filter: 'mapping=github', query: { mappingId: 'github' } },
    { list: 'runs', filter: 'mapping=rare (0.1%)', query: { mappingId: 'rare' } },
    // the built-in endpoints' mappings, which runs_mapping and receipts_mapping leave out: read by time
    { list: 'runs', filter: 'mapping=agent (half)', query: { mappingId: 'agent' } },
    { list: 'runs', filter: 'mapping=wake (none: it makes no runs)', query: { mappingId: 'wake' } },
    { list: 'runs', filter: 'channel=telegram', query: { channel: 'telegram' }, added: true },
    { list: 'runs', filter: 'channel=slack', query: { channel: 'slack' }, added: true },
    { list: 'runs', filter: 'agent=support', query: { agentId: 'support' } },
    { list: 'runs', filter: 'session=hook:seed-777', query: { sessionKey: 'hook:seed-777' } },
    // half the seeded runs made their session up, as a run given none does (run-queue.ts): hook:<its id>
    { list: 'runs', filter: 'session=hook:<run id> (made up)', query: { sessionKey: `hook:${seededRunId(778)}` } },
    { list: 'runs', filter: 'since/until (1 h)', query: hour },
    { list: 'runs', filter: 'q=seed-12345', query: { q: 'seed-12345' } },
    { list: 'receipts', filter: '(none)', query: {} },
    { list: 'receipts', filter: 'mapping=github', query: { mappingId: 'github' } },
    { list: 'receipts', filter: 'mapping=agent (half)', query: { mappingId: 'agent' } },
    { list: 'receipts', filter: 'mapping=wake (none)', query: { mappingId: 'wake' } },
    { list: 'receipts', filter: 'status=202 (most)', query: { status: 202 } },
    { list: 'receipts', filter: 'status=200 (a tenth of the wakes)', query: { status: 200 } },
    { list: 'receipts', filter: 'status=401 (1 in 500)', query: { status: 401 } },
    { list: 'receipts', filter: 'status=404 (none)', query: { status: 404 } },
    { list: 'receipts', filter: 'status=201 (none)', query: { status: 201 } },
    { list: 'receipts', filter: 'result=error', query: { result: 'error' } },
    { list: 'receipts', filter: 'result=ok', query: { result: 'ok' } },
    { list: 'receipts', filter: 'run=seed-777', query: { runId: seededRunId(777) } },
    { list: 'receipts', filter: 'since/until (1 h)', query: hour },
    { list: 'receipts', filter: 'q=seed-12345', query: { q: 'seed-12345' } },
    { list: 'events', filter: '(none)', query: {} },
    { list: 'events', filter: 'session=main', query: { session: 'main' } },
    { list: 'events', filter: 'mapping=deploys', query: { mappingId: 'deploys' }, added: true },
    { list: 'events', filter: 'q=event 4242', query: { q: 'event 4242' } },
    { list: 'deliveries', filter: '(none)', query: {} },
    { list: 'deliveries', filter: 'status=failed', query: { status: 'failed' } },
    { list: 'deliveries', filter: 'channel=telegram', query: { channel: 'telegram' } },
    { list: 'deliveries', filter: 'mapping=github', query: { mappingId: 'github' }, added: true },
    { list: 'deliveries', filter: 'mapping=rare (0.1%)', query: { mappingId: 'rare' }, added: true },
    { list: 'deliveries', filter: 'since/until (1 h)', query: hour },
    { list: 'sessions', filter: '(none)', query: {} },
    { list: 'sessions', filter: 'agent=sales', query: { agentId: 'sales' }, added: true },
    { list: 'sessions', filter: 'q=seed-777', query: { q: 'seed-777' } },
    { list: 'sessions', filter: 'since/until (1 h)', query: hour },
  ];
}

/**
 * Seeds finished work straight into the tables (the port would take minutes): per run i, one
 * receipt and two session messages (bench/seed-sessions.ts); a delivery for every second run;
 * wake receipts with their events.
 */
function seed(dbFile: string, rows: number): void {
  const db = new Database(dbFile);
  const n = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)`;
  const mapping = `CASE WHEN i % 1000 = 0 THEN 'rare' WHEN i % 2 = 0 THEN 'github' ELSE 'agent' END`;
  const time = `(${T0} + i * 1000)`;
  const runId = keyedId(time, "'seed-' || i");
  // a store past SQLite migration 19 keeps a run's mapping in a column too (a checkout before it does not have the column)
  const mappingColumn = hasColumn(db, 'runs', 'mapping_id');
  db.transaction(() => {
    db.prepare(
      `${n} INSERT INTO runs (id, status, agent_id, name, session_key, message, action, reply, error, created_at, started_at, finished_at, deliver${mappingColumn ? ', mapping_id' : ''})
       SELECT ${runId}, CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN i % 10 = 0 THEN 'support' ELSE 'main' END,
         'Seed ' || i, CASE WHEN i % 2 = 0 THEN 'hook:' || ${runId} ELSE 'hook:seed-' || i END, 'seeded',
         json_object('kind', 'agent', 'message', 'seeded', 'name', 'Seed', 'agentId', 'main', 'wakeMode', 'now', 'deliver', json('true'),
           'channel', CASE i % 3 WHEN 0 THEN 'telegram' WHEN 1 THEN 'slack' ELSE 'last' END, 'allowUnsafeExternalContent', json('false'),
           'source', json_object('mappingId', ${mapping}, 'path', 'github')),
         'ok', NULL, ${time}, ${time}, ${time} + 500, 1${mappingColumn ? `, ${mapping}` : ''} FROM n`,
    ).run(rows);
    db.prepare(
      `${n} INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, run_id, auth_method, body_bytes, latency_ms)
       SELECT ${keyedId(time, "'rcpt-' || i")}, 'req-' || i, ${time}, 'POST', 'github', ${mapping}, CASE WHEN i % 500 = 0 THEN 401 ELSE 202 END, 'agent', ${runId}, 'bearer', 100, 1.5 FROM n`,
    ).run(rows);
    seedSessions(db, n, rows, T0);
    db.prepare(
      `${n} INSERT INTO deliveries (id, run_id, kind, channel, recipient, text, session_key, agent_id, status, attempts, next_attempt_at, created_at, updated_at)
       SELECT 'dlv-' || i, ${runId}, 'run', CASE WHEN i % 4 = 0 THEN 'telegram' ELSE 'discord' END, '555', 'ok', 'hook:seed-' || i, 'main',
         CASE WHEN i % 100 = 0 THEN 'failed' ELSE 'delivered' END, 1, ${time}, ${time} + 600, ${time} + 700 FROM n WHERE i % 2 = 0`,
    ).run(rows);
    const events = Math.floor(rows / 4);
    db.prepare(`${n} INSERT INTO events (session, text, status, created_at) SELECT CASE WHEN i % 5 = 0 THEN 'other' ELSE 'main' END, 'event ' || i, 'done', ${T0} + i * 4000 FROM n`).run(events);
    // every tenth event was a wake request of the `deploys` mapping
    db.prepare(
      `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, event_id, auth_method, body_bytes, latency_ms)
       SELECT ${keyedId('created_at', "'wake-' || id")}, 'wreq-' || id, created_at, 'POST', 'deploys', 'deploys', 200, 'wake', id, 'bearer', 50, 1.0 FROM events WHERE id % 10 = 0`,
    ).run();
  })();
  db.exec('ANALYZE');
  db.close();
}

async function openStore(root: string, dbFile: string): Promise<Opened> {
  const mod = (await import(pathToFileURL(path.join(root, 'src/store/sqlite/sqlite-store.ts')).href)) as { openSqliteStore: (file: string) => Opened | Promise<Opened> };
  return mod.openSqliteStore(dbFile);
}

async function pageMs(store: Opened, c: Case): Promise<{ ms: number; rows: number }> {
  const query = { limit: PAGE + 1, defaultAgentId: 'main', ...c.query };
  const call = () => (c.list === 'receipts' ? store.receipts.list(query) : store.browse[c.list]!(query));
  const rows = (await call()).length; // warm: statements prepared, pages cached
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, rows };
}

/**
 * What the lists cost the writers: each message written keeps its session's summary (a trigger
 * per message before migration 17, one upsert per turn since). A turn's two messages through the
 * checkout's own `turnAppender` (as a run's completion writes them), straight on the file so only
 * the store's work is timed: µs per turn, median of 5 rounds of 5000 turns in a transaction each.
 * Half the turns start a session (a summary inserted), half continue one.
 */
async function appendTurnUs(root: string, file: string, label: string): Promise<number> {
  const { turnAppender } = (await import(pathToFileURL(path.join(root, 'src/store/sqlite/sessions-repo.ts')).href)) as {
    turnAppender: (db: Database.Database) => (sessionKey: string, messages: unknown[]) => void;
  };
  const db = new Database(file);
  const append = turnAppender(db);
  const meta = { agentId: 'sales' };
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const started = performance.now();
    db.transaction(() => {
      for (let i = 0; i < 5000; i++) {
        const createdAt = Date.now();
        append(`chat:bench-${label}-${r}-${i >> 1}`, [
          { role: 'user', content: 'hello', runId: null, meta, createdAt },
          { role: 'assistant', content: 'hi there', runId: null, meta, createdAt },
        ]);
      }
    })();
    rounds.push(((performance.now() - started) * 1000) / 5000);
  }
  db.close();
  rounds.sort((a, b) => a - b);
  return rounds[2]!;
}

/**
 * What the indexes of `runs` cost the writers: a run's life as the run queue writes it (inserted
 * queued, claimed, finished), straight on the checkout's migrated file, the statements written out
 * here after its runs repo's (so its indexes and triggers are what differs between checkouts), 16
 * runs to a transaction (a group commit's worth): µs per run, median of 5 rounds of 4000.
 * `conflict`: the statements' conflict clause, `OR FAIL` as the repo writes them (no statement
 * journal, src/store/sqlite/group-commit.ts) or '' for SQLite's default ABORT, to show what that costs.
 */
function runLifeUs(file: string, label: string, conflict: 'OR FAIL' | ''): number {
  const db = new Database(file);
  db.pragma('temp_store = MEMORY');
  const mappingColumn = hasColumn(db, 'runs', 'mapping_id');
  const insert = db.prepare(
    `INSERT ${conflict} INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at, lease_owner, lease_until${mappingColumn ? ', mapping_id' : ''})
     VALUES (?, 'queued', 'main', 'Bench', ?, 'summarise the open tickets', ?, 0, NULL, NULL, ?, NULL, NULL, NULL, NULL${mappingColumn ? ", 'agent'" : ''})`,
  );
  const claim = db.prepare(`UPDATE ${conflict} runs SET status = 'running', started_at = ?, lease_owner = 'bench', lease_until = ? WHERE id = ?`);
  const finish = db.prepare(
    `UPDATE ${conflict} runs SET status = 'succeeded', reply = 'ok', finished_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND status IN ('queued', 'running') AND waiting = 0 RETURNING session_key`,
  );
  const action = JSON.stringify({ kind: 'agent', message: 'summarise the open tickets', name: 'Bench', agentId: 'main', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' } });
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const started = performance.now();
    for (let g = 0; g < 250; g++) {
      db.transaction(() => {
        const now = Date.now();
        const ids = Array.from({ length: 16 }, (_, i) => `life-${label}-${conflict}-${r}-${g}-${i}`);
        for (const id of ids) insert.run(id, `hook:${id}`, action, now);
        for (const id of ids) claim.run(now, now + 60_000, id);
        for (const id of ids) finish.get(now, id);
      })();
    }
    rounds.push(((performance.now() - started) * 1000) / 4000);
  }
  db.close();
  rounds.sort((a, b) => a - b);
  return rounds[2]!;
}

export async function run(rows = Number(process.env.ADMIN_ROWS ?? 200_000)): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-admin-lists-'));
  const roots: [string, string][] = [
    ...(process.env.BENCH_BASELINE_ROOT ? [['before', process.env.BENCH_BASELINE_ROOT] as [string, string]] : []),
    ['after', process.env.BENCH_HERALD_ROOT ?? HERE],
  ];
  try {
    console.log(`admin lists benchmark: one page of ${PAGE} on a SQLite store of ${rows} runs (median of ${REPEAT})`);
    const template = path.join(dir, 'template.db');
    // the oldest checkout's schema, so every checkout migrates up from the same store
    await (await openStore(roots[0]![1], template)).close();
    seed(template, rows);
    const results = new Map<string, Map<string, { ms: number; rows: number } | null>>();
    const appends = new Map<string, number>();
    const lives = new Map<string, number>();
    const aborting = new Map<string, number>();
    for (const [label, root] of roots) {
      const file = path.join(dir, `${label}.db`);
      fs.copyFileSync(template, file);
      const store = await openStore(root, file);
      const measured = new Map<string, { ms: number; rows: number } | null>();
      for (const c of cases(rows)) measured.set(`${c.list}?${c.filter}`, c.added && label === 'before' ? null : await pageMs(store, c));
      await store.close();
      appends.set(label, await appendTurnUs(root, file, label));
      lives.set(label, runLifeUs(file, label, 'OR FAIL'));
      aborting.set(label, runLifeUs(file, label, ''));
      results.set(label, measured);
    }
    const header = ['list', 'filter', ...roots.flatMap(([label]) => [`${label} ms/page`, `${label} rows`])];
    const table = cases(rows).map((c) => [
      c.list,
      c.filter,
      ...roots.flatMap(([label]) => {
        const m = results.get(label)!.get(`${c.list}?${c.filter}`);
        return m ? [m.ms.toFixed(2), String(m.rows)] : ['n/a', ''];
      }),
    ]);
    console.log(formatTable(header, table));
    console.log('');
    console.log(
      formatTable(['writer', ...roots.map(([label]) => `${label} µs`)], [
        ['a turn of 2 messages appended', ...roots.map(([label]) => appends.get(label)!.toFixed(1))],
        ['a run inserted, claimed and finished', ...roots.map(([label]) => lives.get(label)!.toFixed(1))],
        ['the same under the default ABORT (statement journal)', ...roots.map(([label]) => aborting.get(label)!.toFixed(1))],
      ]),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
