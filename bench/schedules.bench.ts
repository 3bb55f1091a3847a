import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { scheduleJobSchema } from '../src/config/sections/schedules-schema.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { cpuProfileArgs, startChildServer } from './child-server.js';
import { optionsFromEnv, type HooksBenchOptions } from './hooks.bench.js';
import { runLoad } from './load.js';
import { cpuMillis } from './process-stats.js';
import { formatTable, ms, percentile } from './table.js';

/**
 * Schedules at scale: 10,000 stored jobs (`BENCH_JOBS`). The start to the first `/healthz` with
 * them in the store, herald's CPU while none is due (one timer for the earliest due time: nothing
 * wakes per job), then the lag from each fire's due time to its claim (p50, p99) while the
 * webhook load (`/hooks/wake`, BENCH_CONNECTIONS) runs and every job comes due once, spread over
 * the load's BENCH_SCHEDULE_SECONDS.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';

export async function run(options: HooksBenchOptions = optionsFromEnv()): Promise<void> {
  const jobs = Number(process.env.BENCH_JOBS ?? 10_000);
  const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
  const loadSeconds = Number(process.env.BENCH_SCHEDULE_SECONDS ?? 30);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-schedules-'));
  const dbFile = path.join(dir, 'data', 'herald.db');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  const configFile = path.join(dir, 'herald.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: HOOK_TOKEN },
      heartbeat: { every: '0' },
      storage: { sqlite: './data/herald.db' },
    }),
  );

  // the jobs, stored as /admin/schedules stores them: each a main-session event, due once in the
  // load window (its first due time), then a day later
  const seeded = Date.now();
  const firstDueAt = seeded + 60_000 + idleSeconds * 1000;
  const store = openSqliteStore(dbFile);
  for (let k = 0; k < jobs; k++) {
    const job = scheduleJobSchema.parse({ id: `job-${k}`, schedule: { kind: 'every', every: '1d' }, sessionTarget: 'main', wakeMode: 'next-heartbeat', payload: { kind: 'systemEvent', text: `job ${k} is due` } });
    const nextDue = firstDueAt + Math.floor((k / jobs) * loadSeconds * 1000);
    await store.schedules.put({ id: job.id, origin: 'api', job, enabled: true, nextDue, createdAt: nextDue - 86_400_000, updatedAt: seeded }, true);
  }
  await store.close();

  const started = performance.now();
  const server = await startChildServer({
    name: 'herald',
    args: [...cpuProfileArgs(options.cpuProfileDir), path.join(ROOT, 'bin/herald.mjs'), 'serve', '--config', configFile],
    cwd: ROOT,
    env: { HERALD_LOG_LEVEL: 'warn' },
    startTimeoutMs: 120_000,
  });
  if ((await fetch(`${server.url}/healthz`)).status !== 200) throw new Error('herald did not answer /healthz');
  const startMs = performance.now() - started;

  // idle: no job due; herald's CPU over the window, as a share of one core
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleFrom = cpuMillis(server.pid);
  const idleAt = performance.now();
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const idleCpu = (cpuMillis(server.pid) - idleFrom) / (performance.now() - idleAt);
  if (Date.now() > firstDueAt) throw new Error(`herald took too long to start: the jobs came due before the idle window ended`);

  // the load: webhook requests while every job comes due once
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstDueAt - Date.now() - 1000)));
  const load = await runLoad({
    url: server.url,
    path: '/hooks/wake',
    headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'bench event {n}: the nightly export finished', mode: 'next-heartbeat' }),
    connections: options.connections,
    durationSeconds: loadSeconds + 2,
  });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await server.stop();

  const db = new Database(dbFile, { readonly: true });
  const fires = db.prepare(`SELECT due_at, fired_at, outcome FROM schedule_fires`).all() as { due_at: number; fired_at: number; outcome: string }[];
  db.close();
  const lags = fires.map((f) => f.fired_at - f.due_at).sort((a, b) => a - b);
  const dispatched = fires.filter((f) => f.outcome === 'dispatched').length;

  console.log(`Schedules: ${jobs.toLocaleString('en')} stored jobs (SQLite), each due once over ${loadSeconds}s under /hooks/wake load (${options.connections} connections)`);
  console.log(
    formatTable(
      ['jobs', 'start to /healthz', 'idle CPU', 'fires', 'dispatched', 'lag p50', 'lag p99', 'webhook req/s', 'webhook p99'],
      [[jobs, ms(startMs), `${(idleCpu * 100).toFixed(2)}%`, fires.length, dispatched, ms(percentile(lags, 0.5)), ms(percentile(lags, 0.99)), Math.round(load.requestsPerSecond), ms(load.latencyP99Ms)]],
    ),
  );
  if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
