import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { formatTable } from './table.js';

/**
 * The admin lists on a large PostgreSQL store: one page (50 rows) of each list with each filter,
 * through the store port, median of several pages. `ADMIN_ROWS` finished runs (default 1M), each
 * with a receipt (one in 500 refused with a 401) and, for every second run, a delivery; 1,000
 * queued runs besides. `BENCH_BASELINE_ROOT=<checkout>` measures that checkout's store first, then
 * this one's on the same rows (its migrations applied on top, timed), so a before/after is one run.
 * `BENCH_PG_URL` (default the local test database); the schema is dropped after.
 *
 *   BENCH_BASELINE_ROOT=/path/to/other/checkout node --import tsx bench/admin-lists-pg.bench.ts
 */

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PAGE = 50;
const REPEAT = Number(process.env.ADMIN_REPEAT ?? 15);
const T0 = 1_750_000_000_000;
const SCHEMA = `admin_lists_${process.pid}`;

interface Store {
  browse: Record<string, (query: Record<string, unknown>) => Promise<unknown[]>> & { runsPerMinute(since: number): Promise<unknown[]> };
  receipts: { list(query: Record<string, unknown>): Promise<unknown[]> };
  close(): Promise<void>;
}

type Case = { name: string; page: (store: Store) => Promise<unknown[]> };

function cases(rows: number): Case[] {
  const list = (name: string, query: Record<string, unknown>): Case => ({ name: `runs?${name}`, page: (s) => s.browse.runs!({ limit: PAGE + 1, ...query }) });
  const receipts = (name: string, query: Record<string, unknown>): Case => ({ name: `receipts?${name}`, page: (s) => s.receipts.list({ limit: PAGE + 1, ...query }) });
  const hour = { since: T0 + (rows - 3600) * 1000, until: T0 + rows * 1000 };
  return [
    list('(none)', {}),
    list('session=hook:seed-777', { sessionKey: 'hook:seed-777' }),
    list('mapping=github', { mappingId: 'github' }),
    list('mapping=rare (0.1%)', { mappingId: 'rare' }),
    // the built-in endpoints' mappings, which runs_mapping and receipts_mapping leave out: read by time
    list('mapping=agent (half)', { mappingId: 'agent' }),
    list('mapping=wake (none: it makes no runs)', { mappingId: 'wake' }),
    list('agent=main', { agentId: 'main' }),
    list('status=failed', { status: 'failed' }),
    list('status=succeeded', { status: 'succeeded' }),
    list('status=queued', { status: 'queued' }),
    list('since/until (1 h)', hour),
    { name: 'runs per minute (last hour)', page: (s) => s.browse.runsPerMinute(T0 + (rows - 3600) * 1000) },
    { name: 'deliveries?mapping=github', page: (s) => s.browse.deliveries!({ limit: PAGE + 1, mappingId: 'github' }) },
    { name: 'deliveries?mapping=rare (0.1%)', page: (s) => s.browse.deliveries!({ limit: PAGE + 1, mappingId: 'rare' }) },
    receipts('(none)', {}),
    receipts('mapping=github', { mappingId: 'github' }),
    receipts('mapping=agent (half)', { mappingId: 'agent' }),
    receipts('mapping=wake (none)', { mappingId: 'wake' }),
    receipts('status=202 (most)', { status: 202 }),
    receipts('status=401 (1 in 500)', { status: 401 }),
    receipts('status=201 (none)', { status: 201 }),
    receipts('result=error', { result: 'error' }),
  ];
}

async function migrateWith(root: string, pool: pg.Pool): Promise<void> {
  const { migrate } = (await import(pathToFileURL(path.join(root, 'src/store/postgres/migrate.ts')).href)) as { migrate(pool: pg.Pool, schema: string): Promise<number> };
  await migrate(pool, SCHEMA);
}

/**
 * Seeds finished work straight into the tables, as the SQLite bench does (the port would take
 * minutes), with the triggers off: a counting trigger's upsert of one row per inserted row, in one
 * transaction, walks every version of that row written before it. The counts /metrics reads are
 * not what this bench measures.
 */
async function seed(pool: pg.Pool, rows: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SET session_replication_role = replica');
    await seedRows(client, rows);
    await client.query('RESET session_replication_role');
  } finally {
    client.release();
  }
  await pool.query('ANALYZE');
}

/** a run's stored action (src/store/contracts/run-action.ts), its message and mapping as SQL */
const action = (message: string, mapping: string) =>
  `jsonb_build_object('kind', 'agent', 'message', ${message}, 'name', 'Hook', 'agentId', 'main', 'wakeMode', 'now', 'deliver', true, 'channel', 'last',
    'allowUnsafeExternalContent', false, 'source', jsonb_build_object('mappingId', ${mapping}, 'path', 'github'))`;

async function seedRows(pool: pg.PoolClient, rows: number): Promise<void> {
  const mapping = `CASE WHEN i % 1000 = 0 THEN 'rare' WHEN i % 2 = 0 THEN 'github' ELSE 'agent' END`;
  const time = `(${T0}::bigint + i * 1000)`;
  await pool.query(
    `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, created_at, started_at, finished_at)
     SELECT 'seed-' || i, CASE WHEN i % 200 = 0 THEN 'failed' ELSE 'succeeded' END, 'main', 'Hook', 'hook:seed-' || i, 'seeded',
       ${action(`'seeded'`, mapping)},
       true, 'ok', ${time}, ${time}, ${time} + 500
     FROM generate_series(1, $1::int) AS i`,
    [rows],
  );
  await pool.query(
    `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at)
     SELECT 'queued-' || i, 'queued', 'main', 'Hook', 'hook:queued-' || i, 'waiting',
       ${action(`'waiting'`, `'github'`)},
       false, ${T0}::bigint + $1::bigint * 1000 + i
     FROM generate_series(1, 1000) AS i`,
    [rows],
  );
  await pool.query(
    `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, run_id, auth_method, body_bytes, latency_ms)
     SELECT 'rcpt-' || i, 'req-' || i, ${time}, 'POST', 'github', ${mapping}, CASE WHEN i % 500 = 0 THEN 401 ELSE 202 END, 'agent', 'seed-' || i, 'bearer', 100, 1.5
     FROM generate_series(1, $1::int) AS i`,
    [rows],
  );
  await pool.query(
    `INSERT INTO deliveries (id, run_id, kind, channel, recipient, text, session_key, agent_id, status, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'dlv-' || i, 'seed-' || i, 'run', 'discord', '555', 'ok', 'hook:seed-' || i, 'main', 'delivered', 1, ${time}, ${time} + 600, ${time} + 700
     FROM generate_series(2, $1::int, 2) AS i`,
    [rows],
  );
}

async function pageMs(store: Store, c: Case): Promise<{ ms: number; rows: number }> {
  let rows = 0;
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const started = performance.now();
    rows = (await c.page(store)).length;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, rows };
}

export async function run(rows = Number(process.env.ADMIN_ROWS ?? 1_000_000)): Promise<void> {
  const roots: [string, string][] = [
    ...(process.env.BENCH_BASELINE_ROOT ? [['before', path.resolve(process.env.BENCH_BASELINE_ROOT)] as [string, string]] : []),
    ['after', path.resolve(process.env.BENCH_HERALD_ROOT || HERE)],
  ];
  const pool = new pg.Pool({ connectionString: PG_URL, max: 2, options: `-c search_path=${SCHEMA}` });
  try {
    console.log(`admin lists benchmark on PostgreSQL: one page of ${PAGE} on ${rows} finished runs and 1,000 queued (median of ${REPEAT})`);
    await pool.query(`CREATE SCHEMA ${SCHEMA}`);
    // the oldest checkout's schema, so the next one migrates up from the same rows
    await migrateWith(roots[0]![1], pool);
    let started = performance.now();
    await seed(pool, rows);
    console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const results = new Map<string, Map<string, { ms: number; rows: number }>>();
    for (const [label, root] of roots) {
      started = performance.now();
      await migrateWith(root, pool);
      console.log(`${label} (${root}): migrated in ${((performance.now() - started) / 1000).toFixed(2)} s`);
      const { openPostgresStore } = (await import(pathToFileURL(path.join(root, 'src/store/postgres/postgres-store.ts')).href)) as {
        openPostgresStore(options: { url: string; schema: string }): Promise<Store>;
      };
      const store = await openPostgresStore({ url: PG_URL, schema: SCHEMA });
      const measured = new Map<string, { ms: number; rows: number }>();
      for (const c of cases(rows)) measured.set(c.name, await pageMs(store, c));
      await store.close();
      results.set(label, measured);
    }
    const header = ['list', ...roots.flatMap(([label]) => [`${label} ms/page`, `${label} rows`])];
    console.log(formatTable(header, cases(rows).map((c) => [c.name, ...roots.flatMap(([label]) => {
      const m = results.get(label)!.get(c.name)!;
      return [m.ms.toFixed(2), String(m.rows)];
    })])));
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => {});
    await pool.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
