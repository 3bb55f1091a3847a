import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { startChildServer, type ChildServer } from './child-server.js';
import { optionsFromEnv, type HooksBenchOptions, type HooksBenchRow } from './hooks.bench.js';
import { runLoad, type LoadResult } from './load.js';
import { waitUntilIdle } from './process-stats.js';
import { formatTable, ms } from './table.js';

/**
 * The PostgreSQL column of the webhook benchmark: herald on PostgreSQL with one replica and with
 * two (the load split evenly between them), next to the raw node:http baseline doing the same
 * insert into PostgreSQL the same way (one autocommit statement per request, no batching on
 * either side), all in this run; the SQLite figures of the same run are passed in.
 * BENCH_PG_URL (default the local test database) names the database; each run uses fresh schemas.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface PostgresBenchRow extends LoadResult {
  endpoint: string;
  server: string;
}

const endpoints = [
  // `{n}` becomes the request's number in the load generator (bench/load-worker.ts)
  { path: '/hooks/wake', body: (tag: string) => JSON.stringify({ text: `${tag} event {n}: the nightly export finished` }) },
  { path: '/hooks/agent', body: (tag: string) => JSON.stringify({ message: `${tag} message {n}: summarise the open tickets`, name: 'Bench', deliver: false }) },
];

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function heraldReplica(dir: string, name: string, schema: string): Promise<ChildServer> {
  const configFile = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: HOOK_TOKEN },
      heartbeat: { every: '0' },
      storage: { postgres: { url: PG_URL, schema, poolSize: 10 } },
    }),
  );
  return startChildServer({ name, args: [path.join(ROOT, 'bin/herald.mjs'), 'serve', '--config', configFile], cwd: ROOT, env: { HERALD_LOG_LEVEL: 'warn' } });
}

/** the same load spread over several servers at once: req/s summed, the worst p50/p99 */
async function loadOn(servers: ChildServer[], endpoint: (typeof endpoints)[number], tag: string, options: HooksBenchOptions, seconds: number): Promise<LoadResult> {
  const results = await Promise.all(
    servers.map((server, i) =>
      runLoad({
        url: server.url,
        path: endpoint.path,
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
        body: endpoint.body(`${tag}-${i}`),
        connections: Math.max(1, Math.round(options.connections / servers.length)),
        durationSeconds: seconds,
      }),
    ),
  );
  return {
    requestsPerSecond: results.reduce((s, r) => s + r.requestsPerSecond, 0),
    latencyP50Ms: Math.max(...results.map((r) => r.latencyP50Ms)),
    latencyP99Ms: Math.max(...results.map((r) => r.latencyP99Ms)),
    total: results.reduce((s, r) => s + r.total, 0),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    errors: results.reduce((s, r) => s + r.errors, 0),
    timeouts: results.reduce((s, r) => s + r.timeouts, 0),
  };
}

export async function run(options: HooksBenchOptions, sqliteRows: HooksBenchRow[] = []): Promise<PostgresBenchRow[]> {
  const tag = randomBytes(4).toString('hex');
  const heraldSchema = `bench_${tag}_herald`;
  const baselineSchema = `bench_${tag}_baseline`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pg-bench-'));
  console.log(`PostgreSQL benchmark: ${PG_URL.replace(/:[^:@/]*@/, ':***@')}, schemas ${heraldSchema} and ${baselineSchema} (dropped after)`);
  const started: ChildServer[] = [];
  const rows: PostgresBenchRow[] = [];
  try {
    const baseline = await startChildServer({
      name: 'pg-baseline',
      args: ['--import', 'tsx', path.join(ROOT, 'bench/baseline-server.ts')],
      cwd: ROOT,
      env: { BASELINE_PG_URL: PG_URL, BASELINE_PG_SCHEMA: baselineSchema, BASELINE_TOKEN: HOOK_TOKEN },
    });
    started.push(baseline);
    const first = await heraldReplica(dir, 'herald-pg-1', heraldSchema);
    started.push(first);
    const second = await heraldReplica(dir, 'herald-pg-2', heraldSchema);
    started.push(second);
    const setups: [string, ChildServer[]][] = [
      ['pg baseline', [baseline]],
      ['herald pg ×1', [first]],
      ['herald pg ×2', [first, second]],
    ];
    for (const endpoint of endpoints) {
      for (const [label, servers] of setups) {
        for (const s of started) await waitUntilIdle(s.pid);
        process.stdout.write(`  POST ${endpoint.path} on ${label} ... `);
        if (options.warmupSeconds > 0) await loadOn(servers, endpoint, 'warm-up', options, options.warmupSeconds);
        for (const s of started) await waitUntilIdle(s.pid);
        const result = await loadOn(servers, endpoint, 'bench', options, options.durationSeconds);
        rows.push({ endpoint: endpoint.path, server: label, ...result });
        const faults = result.non2xx + result.errors + result.timeouts;
        console.log(`${result.requestsPerSecond.toFixed(0)} req/s${faults ? `, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts` : ''}`);
      }
    }
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
    await sql(`DROP SCHEMA IF EXISTS ${heraldSchema} CASCADE; DROP SCHEMA IF EXISTS ${baselineSchema} CASCADE`).catch(() => {});
  }

  const table = [
    ...sqliteRows.filter((r) => endpoints.some((e) => e.path === r.endpoint)).map((r) => ({ endpoint: r.endpoint, server: `${r.server} sqlite`, requestsPerSecond: r.requestsPerSecond, latencyP50Ms: r.latencyP50Ms, latencyP99Ms: r.latencyP99Ms })),
    ...rows,
  ].sort((a, b) => a.endpoint.localeCompare(b.endpoint) || 0);
  const pgBaseline = (endpoint: string) => rows.find((r) => r.endpoint === endpoint && r.server === 'pg baseline');
  console.log('');
  console.log(
    formatTable(
      ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'of pg baseline'],
      table.map((r) => {
        const base = pgBaseline(r.endpoint);
        const ratio = r.server.startsWith('herald pg') && base ? `${((r.requestsPerSecond / base.requestsPerSecond) * 100).toFixed(0)}%` : '';
        return [`POST ${r.endpoint}`, r.server, r.requestsPerSecond.toFixed(0), ms(r.latencyP50Ms), ms(r.latencyP99Ms), ratio];
      }),
    ),
  );
  console.log('');
  console.log('Notes:');
  console.log('- pg baseline: the raw node:http baseline (bench/baseline-server.ts) with BASELINE_PG_URL: the same auth, body and validation,');
  console.log('  and the same PostgreSQL write as herald: the events function (advisory lock, duplicate skip, 20-pending cap) for wake,');
  console.log('  a runs row for agent; one autocommit statement per request on a pool of 10; then, after the response, the request\'s');
  console.log('  receipt row as one autocommit INSERT, as herald writes it (bench/baseline-receipts.ts).');
  console.log('- herald pg ×2: two `herald serve` processes on one schema, the connections split between them; on this machine they');
  console.log('  share its CPUs with PostgreSQL and the load generator, so the figure shows contention, not the scale-out of two hosts.');
  console.log('- herald executes the accepted runs and heartbeats in the same processes while the load goes on; the baseline does not.');
  return rows;
}

// alone: `node --import tsx bench/postgres.bench.ts` (the same BENCH_* options as bench/hooks.bench.ts)
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await run(optionsFromEnv());
