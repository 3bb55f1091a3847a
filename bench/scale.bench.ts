import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { cpuProfileArgs, startChildServer, type ChildServer } from './child-server.js';
import { compiledBaseline } from './compiled-baseline.js';
import { optionsFromEnv, type HooksBenchOptions } from './hooks.bench.js';
import { runLoad } from './load.js';
import { MAPPED_BODY, manyMappings, onePathMappings, onePathRequest } from './mapped-hook.js';
import { hasColumn } from './store-columns.js';
import { cpuMillis, residentBytes, trackPeakMemory, waitUntilIdle } from './process-stats.js';
import { formatTable, mb, ms } from './table.js';

/**
 * What grows with the configuration and the store: 1/100/1,000 mappings matched by path, by
 * `match.when` (each mapping its own path and predicate) and on one path routed by `match.when`
 * equalities on body fields and a header (the request for the last one), cold
 * start to the first `/healthz` and idle RSS (0 and 1,000 mappings, and the baseline), and
 * `/metrics` latency on an empty store and on one of 1M events + 1M runs (seeded directly).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** the herald measured: this checkout, or `BENCH_HERALD_ROOT` (another checkout, for a before/after) */
const HERALD_ROOT = path.resolve(process.env.BENCH_HERALD_ROOT || ROOT);
/** `BENCH_BEFORE=<checkout>`: its herald's cold start with no mappings measured in the same run (the start rows) */
const BEFORE_ROOT = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
type MatchedBy = 'path' | 'when' | 'one path';
/** the mapping rows measured: `BENCH_MAPPINGS_BY=one-path` (or `path`, `when`, comma-separated), all by default */
const MATCHED_BY: MatchedBy[] = process.env.BENCH_MAPPINGS_BY
  ? (process.env.BENCH_MAPPINGS_BY.split(',').map((by) => by.trim().replace('-', ' ')) as MatchedBy[])
  : ['path', 'when', 'one path'];
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';

function writeConfig(dir: string, mappings: Record<string, unknown>[], extra: Record<string, unknown> = {}): string {
  const configFile = path.join(dir, 'herald.json');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: HOOK_TOKEN, mappings },
      heartbeat: { every: '0' },
      storage: { sqlite: './data/herald.db' },
      ...extra,
    }),
  );
  return configFile;
}

async function startHerald(configFile: string, root = HERALD_ROOT): Promise<{ server: ChildServer; coldStartMs: number; startCpuMs: number }> {
  const started = performance.now();
  const server = await startChildServer({
    name: 'herald',
    // BENCH_CPU_PROFILE=<dir>: each herald started writes a CPU profile there when it stops
    args: [...cpuProfileArgs(process.env.BENCH_CPU_PROFILE), path.join(root, 'bin/herald.mjs'), 'serve', '--config', configFile],
    cwd: root,
    env: { HERALD_LOG_LEVEL: 'warn' },
    startTimeoutMs: 120_000,
  });
  const res = await fetch(`${server.url}/healthz`);
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
  return { server, coldStartMs: performance.now() - started, startCpuMs: cpuMillis(server.pid) };
}

/** The baseline bundled as herald is (bench/compiled-baseline.ts), run by node alone. */
async function startBaseline(dir: string, script: string): Promise<{ server: ChildServer; coldStartMs: number; startCpuMs: number }> {
  const started = performance.now();
  const server = await startChildServer({
    name: 'baseline',
    args: [script],
    cwd: ROOT,
    env: { BASELINE_DB: path.join(dir, 'baseline.db'), BASELINE_TOKEN: HOOK_TOKEN },
  });
  // the baseline has no /healthz: a 405 on GET is its first answer
  await (await fetch(`${server.url}/hooks/wake`)).text();
  return { server, coldStartMs: performance.now() - started, startCpuMs: cpuMillis(server.pid) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const SLOW_SERVER_MS = 10_000;
/** a stdio MCP server (server-everything, from npm) that sleeps before it reads its first message: herald's start must not wait for it */
const slowToolServer = () => {
  const everything = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  return { tools: { mcpServers: { slow: { command: process.execPath, args: ['-e', `setTimeout(() => import(${JSON.stringify(everything)}), ${SLOW_SERVER_MS})`] } } } };
};

/**
 * Cold start to the first answer (wall, and the server's own CPU time until then, which a busy
 * machine moves far less) and idle RSS once it has settled: the baseline, herald with no mappings
 * and with 1,000 (each with a schema, a template and its own `when`), with none on a store of
 * 1M events + 1M runs, and with none and a stdio MCP server that answers only after 10 s (its
 * start must not be herald's), taken in turn `runs` times; medians. With `BENCH_BEFORE=<checkout>`,
 * that checkout's herald with no mappings takes its turn too (its own store), for a before and after
 * from one run.
 */
export async function coldStartRows(dir: string, runs = Number(process.env.BENCH_START_RUNS || 5)): Promise<(string | number)[][]> {
  const millionConfig = await millionRowStore(path.join(dir, 'cold-1m'));
  const baseline = await compiledBaseline();
  const subjects = [
    { label: 'baseline (raw node:http, bundled)', start: (i: number) => startBaseline(path.join(dir, `baseline-${i}`), baseline) },
    ...[0, 1000].map((count) => {
      const configFile = writeConfig(path.join(dir, `cold-${count}`), manyMappings(count, true));
      return { label: `herald, ${count} mappings`, start: () => startHerald(configFile) };
    }),
    ...(BEFORE_ROOT ? [{ label: 'herald before (BENCH_BEFORE), 0 mappings', start: () => startHerald(writeConfig(path.join(dir, 'cold-before-0'), []), BEFORE_ROOT) }] : []),
    { label: 'herald, 0 mappings, store of 1M events + 1M runs', start: () => startHerald(millionConfig) },
    // a checkout from before tools takes no `tools` section: the row is left out there
    ...(fs.existsSync(path.join(HERALD_ROOT, 'src/config/sections/tools-schema.ts'))
      ? [{ label: `herald, 0 mappings, a stdio MCP server that answers after ${SLOW_SERVER_MS / 1000} s`, start: () => startHerald(writeConfig(path.join(dir, 'cold-slow-tool'), [], slowToolServer())) }]
      : []),
  ];
  const seen = subjects.map(() => ({ wall: [] as number[], cpu: [] as number[], rss: [] as number[] }));
  for (let i = 0; i < runs; i++) {
    for (const [s, subject] of subjects.entries()) {
      fs.mkdirSync(path.join(dir, `baseline-${i}`), { recursive: true });
      const { server, coldStartMs, startCpuMs } = await subject.start(i);
      try {
        seen[s]!.wall.push(coldStartMs);
        seen[s]!.cpu.push(startCpuMs);
        seen[s]!.rss.push(await idleRss(server));
      } finally {
        await server.stop();
      }
    }
  }
  return subjects.map((subject, s) => [subject.label, ms(median(seen[s]!.wall)), median(seen[s]!.cpu).toFixed(0), mb(median(seen[s]!.rss))]);
}

interface MappingRow {
  mappings: number;
  by: MatchedBy;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  cpuMsPerRequest: number;
  peakRssBytes: number;
  faults: number;
}

async function mappingScenario(dir: string, count: number, by: MatchedBy, options: HooksBenchOptions): Promise<MappingRow> {
  const onePath = by === 'one path';
  const { server } = await startHerald(writeConfig(dir, onePath ? onePathMappings(count) : manyMappings(count, by === 'when')));
  const routed = onePathRequest(count);
  try {
    const load = (tag: string, durationSeconds: number) =>
      runLoad({
        url: server.url,
        path: onePath ? '/hooks/routed' : `/hooks/m-${count - 1}`,
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json', ...(onePath && routed.headers) },
        body: (onePath ? routed.body : MAPPED_BODY).replace('{n}', `${tag} {n}`),
        connections: options.connections,
        durationSeconds,
      });
    if (options.warmupSeconds > 0) await load('warm-up', options.warmupSeconds);
    await waitUntilIdle(server.pid);
    const memory = trackPeakMemory(server.pid);
    const cpuBefore = cpuMillis(server.pid);
    const result = await load('bench', options.durationSeconds);
    await waitUntilIdle(server.pid);
    return {
      mappings: count,
      by,
      requestsPerSecond: result.requestsPerSecond,
      latencyP50Ms: result.latencyP50Ms,
      latencyP99Ms: result.latencyP99Ms,
      cpuMsPerRequest: (cpuMillis(server.pid) - cpuBefore) / Math.max(1, result.total),
      peakRssBytes: memory.stop(),
      faults: result.non2xx + result.errors + result.timeouts,
    };
  } finally {
    await server.stop();
  }
}

/** the mapping rows' rounds: `BENCH_ROUNDS` (1 by default), each measuring every count once, their order rotated round to round */
const MAPPING_ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS || 1)));
const MAPPING_COUNTS = [1, 100, 1000];

/**
 * 1, 100 and 1,000 mappings for each way of matching in MATCHED_BY, `MAPPING_ROUNDS` times. One
 * measurement of a row scatters with the machine, and every row's ratio is against the one-mapping
 * row: so each round measures the three counts in a rotated order (none always first) and a row's
 * ratio is taken against its own round's one mapping.
 */
async function mappingRows(dir: string, options: HooksBenchOptions): Promise<MappingRow[][]> {
  const rows: MappingRow[][] = [];
  for (let round = 0; round < MAPPING_ROUNDS; round++) {
    const counts = MAPPING_COUNTS.map((_, i) => MAPPING_COUNTS[(i + round) % MAPPING_COUNTS.length]!);
    const measured: MappingRow[] = [];
    for (const by of MATCHED_BY) {
      for (const count of counts) {
        process.stdout.write(`  ${count} mappings by ${by}${MAPPING_ROUNDS > 1 ? ` (round ${round + 1})` : ''} ... `);
        const row = await mappingScenario(path.join(dir, `map-${by.replace(' ', '-')}-${count}-${round}`), count, by, options);
        measured.push(row);
        console.log(`${row.requestsPerSecond.toFixed(0)} req/s${row.faults ? `, ${row.faults} faults` : ''}`);
      }
    }
    rows.push(measured);
  }
  return rows;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** each row's means over the rounds; "of 1 mapping" is the mean of each round's own ratio */
function mappingTable(rounds: MappingRow[][]): string {
  const lines = MATCHED_BY.flatMap((by) =>
    MAPPING_COUNTS.map((count) => {
      const seen = rounds.map((round) => ({ row: round.find((r) => r.by === by && r.mappings === count)!, one: round.find((r) => r.by === by && r.mappings === 1)! }));
      const of = (pick: (r: MappingRow) => number) => mean(seen.map(({ row }) => pick(row)));
      const ratios = seen.map(({ row, one }) => (row.requestsPerSecond / one.requestsPerSecond) * 100);
      return [
        count,
        by,
        of((r) => r.requestsPerSecond).toFixed(0),
        `${mean(ratios).toFixed(0)}%${rounds.length > 1 ? ` (${ratios.map((r) => r.toFixed(0)).join('/')})` : ''}`,
        ms(of((r) => r.latencyP50Ms)),
        ms(of((r) => r.latencyP99Ms)),
        of((r) => r.cpuMsPerRequest).toFixed(3),
        mb(Math.max(...seen.map(({ row }) => row.peakRssBytes))),
      ];
    }),
  );
  const header = ['mappings', 'matched by', rounds.length > 1 ? 'mean req/s' : 'req/s', 'of 1 mapping', 'p50 ms', 'p99 ms', 'CPU ms/req', 'peak RSS MB'];
  return `${rounds.length > 1 ? `Means over ${rounds.length} rounds, the counts' order rotated each round (each round's ratio in brackets):\n` : ''}${formatTable(header, lines)}`;
}

export async function metricsLatency(url: string, times = 30): Promise<{ p50Ms: number; maxMs: number }> {
  const took: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    await res.text();
    if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
    took.push(performance.now() - started);
  }
  took.sort((a, b) => a - b);
  return { p50Ms: took[Math.floor(times / 2)]!, maxMs: took[times - 1]! };
}

/** a config with no mappings whose store holds 1M events + 1M runs: herald migrates it, then it is seeded */
async function millionRowStore(dir: string): Promise<string> {
  const configFile = writeConfig(dir, []);
  const { server } = await startHerald(configFile);
  await server.stop();
  process.stdout.write('  seeding 1M events and 1M runs ... ');
  const seedStarted = performance.now();
  seedMillion(path.join(dir, 'data', 'herald.db'));
  console.log(`${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
  return configFile;
}

/** 1M finished events and 1M finished runs, written straight into herald's (migrated) file */
export function seedMillion(dbFile: string, rows = 1_000_000): void {
  const db = new Database(dbFile);
  try {
    const now = Date.now();
    // a store past SQLite migration 19 keeps a run's mapping in a column too (an older checkout's has none)
    const mappingColumn = hasColumn(db, 'runs', 'mapping_id');
    const action = JSON.stringify({ kind: 'agent', message: 'seeded', name: 'Seed', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' } });
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO events (session, text, status, created_at) SELECT 'main', 'seeded event ' || i, 'done', ? FROM n`,
      ).run(rows, now);
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO runs (id, status, agent_id, name, session_key, message, action, reply, error, created_at, started_at, finished_at, deliver${mappingColumn ? ', mapping_id' : ''})
         SELECT 'seed-' || i, 'succeeded', 'main', 'Seed', 'hook:seed-' || i, 'seeded', ?, 'ok', NULL, ?, ?, ?, 0${mappingColumn ? ", 'agent'" : ''} FROM n`,
      ).run(rows, action, now, now, now);
    })();
  } finally {
    db.close();
  }
}

async function idleRss(server: ChildServer): Promise<number> {
  await waitUntilIdle(server.pid);
  await new Promise((r) => setTimeout(r, 1000));
  return residentBytes(server.pid);
}

export async function run(options: HooksBenchOptions = optionsFromEnv()): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-scale-'));
  try {
    console.log('scale benchmark: mappings, cold start, idle memory, /metrics on a large store');
    // cold start and idle RSS
    const starts = await coldStartRows(dir);
    console.log(formatTable(START_COLUMNS, starts));

    const rows = await mappingRows(dir, options);

    // /metrics: empty, then 1M + 1M rows
    const metricsDir = path.join(dir, 'metrics');
    const configFile = writeConfig(metricsDir, []);
    let { server } = await startHerald(configFile);
    const empty = await metricsLatency(server.url);
    await server.stop();
    process.stdout.write('  seeding 1M events and 1M runs ... ');
    const seedStarted = performance.now();
    seedMillion(path.join(metricsDir, 'data', 'herald.db'));
    console.log(`${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
    ({ server } = await startHerald(configFile));
    const large = await metricsLatency(server.url);
    await server.stop();

    console.log('');
    console.log(formatTable(START_COLUMNS, starts));
    console.log('');
    console.log(mappingTable(rows));
    console.log('');
    console.log(formatTable(['GET /metrics', 'p50 ms', 'max ms'], [['empty store', ms(empty.p50Ms), ms(empty.maxMs)], ['1M events + 1M runs', ms(large.p50Ms), ms(large.maxMs)]]));
    console.log('');
    console.log('Notes: each mapping has its own match.path (m-0 … m-999), a JSON Schema and a JSONata textTemplate (wake);');
    console.log('"when" adds a JSONata match.when to every mapping; "one path" puts them all on /hooks/routed, each taking one sender by');
    console.log('an equality (source = "…", type = "…", headers.x-kind = "…" in turn). Requests go to the last mapping. /metrics: 30 sequential scrapes.');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const START_COLUMNS = ['start', 'cold start to first answer ms', 'server CPU ms to it', 'idle RSS MB'];

// run directly: `node --import tsx bench/scale.bench.ts` (`... scale.bench.ts start`: the cold start rows
// alone; `... scale.bench.ts mappings`: the mapping rows alone)
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const part = process.argv[2];
  if (part === 'start' || part === 'mappings') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `herald-${part}-`));
    try {
      console.log(part === 'start' ? formatTable(START_COLUMNS, await coldStartRows(dir)) : mappingTable(await mappingRows(dir, optionsFromEnv())));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  } else await run();
}
