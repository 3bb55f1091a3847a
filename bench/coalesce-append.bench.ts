import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { RunAdmission, RunRecord, RunsRepo } from '../src/store/port.js';
import { formatTable, ms } from './table.js';

/**
 * What one event costs the store as it joins a coalescing run (issue 71, item 4): 150 events of
 * 20 KB of one key within one window, admitted one after another through `runs.admit` as the
 * hooks do, on SQLite and on PostgreSQL. Prints the mean time of the early joins (events 2-11)
 * and the late ones (the last 10): a join that rewrote the run's list grows with it, an append
 * does not. Two bounds: `coalesce.maxEvents: 150, maxBytes: 8 MiB` (every event in one run) and
 * the defaults (50 events, 256 KiB: a new run every ~12 events).
 *
 *   node --import tsx bench/coalesce-append.bench.ts        (HERALD_ROOT=<checkout>: another one's store)
 *
 * PostgreSQL: HERALD_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/test (skipped when it does not answer).
 */

const ROOT = path.resolve(process.env.HERALD_ROOT ?? process.cwd());
const PG = process.env.HERALD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = 150;
const EVENT_BYTES = 20_000;

interface Store {
  runs: Pick<RunsRepo, 'admit'>;
  close(): Promise<void>;
}

const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(ROOT, file)).href)) as T;

async function sqlite(): Promise<{ store: Store; drop(): Promise<void> }> {
  const { openSqliteStore } = await load<{ openSqliteStore(file: string): Store }>('src/store/sqlite/sqlite-store.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-coalesce-'));
  return { store: openSqliteStore(path.join(dir, 'herald.db')), drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function postgres(): Promise<{ store: Store; drop(): Promise<void> } | undefined> {
  const client = new pg.Client({ connectionString: PG, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  const schema = `herald_bench_${randomBytes(4).toString('hex')}`;
  const { openPostgresStore } = await load<{ openPostgresStore(o: { url: string; schema: string; poolSize: number }): Promise<Store> }>('src/store/postgres/postgres-store.ts');
  return {
    store: await openPostgresStore({ url: PG, schema, poolSize: 4 }),
    drop: async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

function event(i: number, at: number): RunRecord {
  const message = `event ${i}: ${'x'.repeat(EVENT_BYTES - 12)}`;
  return {
    id: `run-${i}-${randomBytes(4).toString('hex')}`,
    status: 'queued',
    agentId: 'main',
    name: 'Hook',
    sessionKey: 'hook:alerts',
    message,
    action: { kind: 'agent', message, name: 'Hook', agentId: 'main', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'alerts', path: 'alerts' } },
    reply: null,
    error: null,
    createdAt: at,
    startedAt: null,
    finishedAt: null,
  } as RunRecord;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function measure(store: Store, maxEvents: number, maxBytes: number): Promise<{ early: number; late: number; runs: number }> {
  const { runAdmission } = await load<{ runAdmission(action: object, traffic: object): RunAdmission }>('src/runtime/runs/run-admission.ts');
  const admission = runAdmission(
    { source: { mappingId: 'alerts' }, coalesceKey: `db-${maxEvents}` },
    { coalesce: { windowMs: 3_600_000, maxEvents, maxBytes } },
  );
  const times: number[] = [];
  const runs = new Set<string>();
  const start = Date.now();
  for (let i = 0; i < EVENTS; i++) {
    const t = process.hrtime.bigint();
    const admitted = await store.runs.admit(event(i, start + i), admission);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (admitted.type !== 'rate-limited') runs.add(admitted.runId);
  }
  return { early: mean(times.slice(1, 11)), late: mean(times.slice(-10)), runs: runs.size };
}

const rows: string[][] = [];
for (const [name, open] of [['SQLite', sqlite], ['PostgreSQL', postgres]] as const) {
  const opened = await open();
  if (!opened) {
    console.log(`${name}: not reachable at ${PG}, skipped`);
    continue;
  }
  try {
    for (const [maxEvents, maxBytes] of [[150, 8 * 2 ** 20], [50, 262_144]] as const) {
      const r = await measure(opened.store, maxEvents, maxBytes);
      rows.push([name, `${maxEvents} events, ${maxBytes / 1024} KiB`, String(r.runs), ms(r.early), ms(r.late)]);
    }
  } finally {
    await opened.store.close();
    await opened.drop();
  }
}
console.log(`coalescing ${EVENTS} events of ${EVENT_BYTES / 1000} KB of one key (${ROOT}): ms per runs.admit`);
console.log(formatTable(['store', 'coalesce bound', 'runs', 'early (2-11)', 'late (141-150)'], rows));
process.exit(0);
