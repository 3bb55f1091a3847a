import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cpuProfileArgs, startChildServer, type ChildServer } from './child-server.js';
import { cpuMillis } from './process-stats.js';
import { formatTable } from './table.js';

/**
 * How long herald takes to execute a backlog of queued agent runs (embedded model), all in one
 * session or each in its own: N runs are written straight into the store as queued (as the
 * intake leaves them), then herald starts and claims them. A session's runs go one at a time,
 * so one session uses one slot while N sessions use `maxConcurrent`: the figure that matters
 * is the CPU per run, which must not grow with the number waiting in the session (a claim that
 * walks past a busy session's waiting runs made the drain quadratic).
 * Wall time and CPU are counted from the first /healthz answer (start-up excluded) to the
 * last run finished. `DRAIN_RUNS=10000,50000` sets the sizes; `DRAIN_STORE=/path/to/checkout` runs another herald;
 * `DRAIN_PG=1` drains on PostgreSQL (`BENCH_PG_URL`, a fresh schema each time) instead of SQLite;
 * `DRAIN_SESSIONS=one|each` runs one of the two cases.
 */

const ROOT = process.env.DRAIN_STORE ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ON_PG = process.env.DRAIN_PG === '1';
/** `DRAIN_SESSIONS=one` or `each`: only that case (both by default) */
const SESSIONS = process.env.DRAIN_SESSIONS === 'one' ? [true] : process.env.DRAIN_SESSIONS === 'each' ? [false] : [false, true];

function writeConfig(dir: string, schema: string): string {
  const configFile = path.join(dir, 'herald.json');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: 'bench-hook-token-0123456789abcdef' },
      heartbeat: { every: '0' },
      storage: ON_PG ? { postgres: { url: PG_URL, schema } } : { sqlite: './data/herald.db' },
    }),
  );
  return configFile;
}

const startHerald = (configFile: string): Promise<ChildServer> =>
  startChildServer({
    name: 'herald',
    // DRAIN_CPU_PROFILE=dir: a V8 CPU profile of each herald process, written there when it stops
    args: [...cpuProfileArgs(process.env.DRAIN_CPU_PROFILE), path.join(ROOT, 'bin/herald.mjs'), 'serve', '--config', configFile],
    cwd: ROOT,
    env: { HERALD_LOG_LEVEL: 'warn' },
    startTimeoutMs: 120_000,
  });

/** N queued runs, as the intake writes them: in one session (`hook:busy`) or one session each */
function seedQueued(dbFile: string, runs: number, oneSession: boolean): void {
  const db = new Database(dbFile);
  try {
    const now = Date.now();
    const insert = db.prepare(
      `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at)
       VALUES (?, 'queued', 'main', 'Drain', ?, 'ping', ?, 0, NULL, NULL, ?, NULL, NULL)`,
    );
    db.transaction(() => {
      for (let i = 0; i < runs; i++) {
        const sessionKey = oneSession ? 'hook:busy' : `hook:s-${i}`;
        const action = JSON.stringify({ kind: 'agent', message: 'ping', name: 'Drain', sessionKey, wakeMode: 'next-heartbeat', deliver: false, channel: 'last', allowUnsafeExternalContent: false, agentId: 'main', source: { mappingId: 'agent', path: 'agent' } });
        insert.run(`drain-${i}`, sessionKey, action, now + i);
      }
    })();
  } finally {
    db.close();
  }
}

/** the same on PostgreSQL, in one statement (the insert triggers flag the runs waiting behind) */
async function seedQueuedPg(schema: string, runs: number, oneSession: boolean): Promise<void> {
  await onPg(`
    INSERT INTO ${schema}.runs (id, status, agent_id, name, session_key, message, action, deliver, created_at)
    SELECT 'drain-' || i, 'queued', 'main', 'Drain', k, 'ping',
      jsonb_build_object('kind', 'agent', 'message', 'ping', 'name', 'Drain', 'sessionKey', k, 'wakeMode', 'next-heartbeat', 'deliver', false, 'channel', 'last',
        'allowUnsafeExternalContent', false, 'agentId', 'main', 'source', jsonb_build_object('mappingId', 'agent', 'path', 'agent')),
      false, ${Date.now()} + i
    FROM generate_series(0, ${runs - 1}) AS i, LATERAL (SELECT CASE WHEN ${oneSession} THEN 'hook:busy' ELSE 'hook:s-' || i END AS k) AS key`);
}

async function onPg<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

async function drainedPg(schema: string): Promise<void> {
  const unfinished = async () => Number((await onPg<{ n: string }>(`SELECT COUNT(*) AS n FROM ${schema}.runs WHERE status IN ('queued', 'running')`))[0]!.n);
  while ((await unfinished()) > 0) await new Promise((r) => setTimeout(r, 250));
}

async function drained(dbFile: string): Promise<void> {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const unfinished = db.prepare("SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running')").pluck();
    while ((unfinished.get() as number) > 0) await new Promise((r) => setTimeout(r, 100));
  } finally {
    db.close();
  }
}

export interface DrainRow {
  runs: number;
  sessions: string;
  seconds: number;
  cpuMsPerRun: number;
}

async function drain(dir: string, runs: number, oneSession: boolean): Promise<DrainRow> {
  const schema = `herald_drain_${process.pid}_${runs}_${oneSession ? 'one' : 'each'}`;
  const configFile = writeConfig(dir, schema);
  const dbFile = path.join(dir, 'data', 'herald.db');
  // a first start migrates the store; the runs are seeded while herald is stopped
  await (await startHerald(configFile)).stop();
  if (ON_PG) await seedQueuedPg(schema, runs, oneSession);
  else seedQueued(dbFile, runs, oneSession);
  const server = await startHerald(configFile);
  try {
    const res = await fetch(`${server.url}/healthz`);
    await res.text();
    const started = performance.now();
    const cpuBefore = cpuMillis(server.pid);
    await (ON_PG ? drainedPg(schema) : drained(dbFile));
    return {
      runs,
      sessions: oneSession ? 'one session' : 'one each',
      seconds: (performance.now() - started) / 1000,
      cpuMsPerRun: (cpuMillis(server.pid) - cpuBefore) / runs,
    };
  } finally {
    await server.stop();
    if (ON_PG) await onPg(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

export async function run(sizes = (process.env.DRAIN_RUNS ?? '10000,50000').split(',').map(Number)): Promise<DrainRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-drain-'));
  const rows: DrainRow[] = [];
  try {
    console.log(`run drain benchmark (${ON_PG ? 'PostgreSQL' : 'SQLite'}): N queued agent runs (embedded model), in one session vs one session each`);
    for (const runs of sizes) {
      for (const oneSession of SESSIONS) {
        process.stdout.write(`  ${runs} runs, ${oneSession ? 'one session' : 'one session each'} ... `);
        const row = await drain(path.join(dir, `${runs}-${oneSession ? 'one' : 'each'}`), runs, oneSession);
        rows.push(row);
        console.log(`${row.seconds.toFixed(1)} s, ${row.cpuMsPerRun.toFixed(3)} CPU ms/run`);
      }
    }
    console.log('');
    console.log(formatTable(['runs', 'sessions', 'drain s', 'runs/s', 'CPU ms/run'], rows.map((r) => [r.runs, r.sessions, r.seconds.toFixed(1), (r.runs / r.seconds).toFixed(0), r.cpuMsPerRun.toFixed(3)])));
    console.log('');
    console.log('Notes: runs seeded queued in the store, herald started on them; timed from the first /healthz to the last run finished.');
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// run directly: `node --import tsx bench/run-drain.bench.ts`
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
