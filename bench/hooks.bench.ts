import { spawnSync } from 'node:child_process';
import { startOtlpSink } from './otlp-sink.js';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BASELINE_LABEL, baselineSchemasOf, prepareBaselineDatabase, type BaselineSchema } from './baseline-database.js';
import { cpuProfileArgs, startChildServer, type ChildServer } from './child-server.js';
import { compiledBaseline } from './compiled-baseline.js';
import { executedPerSecond, executesRuns, renderExecutedTable, type ExecutedRow } from './executed-table.js';
import { runLoad, type LoadResult } from './load.js';
import { cpuMillis, trackPeakMemory, waitUntilIdle } from './process-stats.js';
import { MAPPED_BODY, mappedHookMappings, mappedToolMapping } from './mapped-hook.js';
import { GITHUB_PRESET, GITHUB_SIGNING, githubBaselineConfig, SIGNED_BODY, SIGNED_PATH, signedHeaders } from './signed-hook.js';
import { PerfRecording, renderPerfSplit, type PerfWindow } from './perf-split.js';
import { formatTable, mb, ms } from './table.js';

/**
 * The webhook benchmark: herald (`herald serve`, its own process) against a raw node:http
 * baseline doing the same per-request work (bench/baseline-server.ts, its own process), on
 * POST /hooks/wake and POST /hooks/agent, with the same bodies, connections and duration; mapped
 * hooks; and a signed preset webhook (POST /hooks/github: GitHub's issues.opened signed as GitHub
 * signs, no token; bench/signed-hook.ts).
 * Runs standalone too: `node --import tsx bench/hooks.bench.ts`.
 *
 * Env: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_CPU_PROFILE=<dir> (herald under
 * --cpu-prof), BENCH_BASELINE_CPU_PROFILE=<dir> (the baseline under --cpu-prof),
 * BENCH_HERALD_ROOT=<checkout>[,<checkout>...] (the herald(s) to run: several give an A/B in one
 * run, each measured in turn after the baseline), BENCH_ENDPOINTS=wake,mapped-wake (a subset),
 * BENCH_LOG_LEVEL (herald's level; warn by default: no access line), BENCH_ROUNDS=<n> (each
 * endpoint n times, the heralds' order rotated each round, then their means: the herald measured
 * second of two has read a few % more CPU than the same code measured first),
 * BENCH_BASELINE_SCHEMA=both|own|herald (the baselines: by default two, one writing the same records
 * into tables of its own with only the indexes its reads need, one into a file made by herald's
 * migrations; herald gets a column against each; bench/baseline-database.ts), BENCH_PERF=<file>
 * (Linux perf records every server into <file>, then each measurement's CPU per request is split
 * by where it ran: bench/perf-split.ts).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';

export interface HooksBenchOptions {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** a folder: herald runs under `--cpu-prof` and writes its profile there */
  cpuProfileDir?: string;
  /** a folder: the baseline runs under `--cpu-prof` and writes its profile there */
  baselineCpuProfileDir?: string;
  /** the checkouts whose herald is measured (default: this one); several give an A/B in one run */
  heraldRoots: string[];
  /** the endpoints to run, by name after /hooks/ (default: all) */
  endpoints?: string[];
  /** herald's log level during the run (HERALD_LOG_LEVEL) */
  logLevel: string;
  /** each endpoint this many times, the heralds' order rotated each round (an A/B without the order's bias) */
  rounds: number;
  /** the baselines measured, by the tables they write into (bench/baseline-database.ts) */
  baselineSchemas: BaselineSchema[];
  /** a file: `perf record` of every server goes there, and each measurement's CPU is split by where it ran */
  perfFile?: string;
  /** herald with tracing off, on (every trace recorded, exported over OTLP/HTTP protobuf to a sink that drops it), or both as an A/B */
  tracing: ('off' | 'on')[];
}

export interface HooksBenchRow extends LoadResult, ExecutedRow {
  endpoint: string;
  /** `baseline`, `herald`, or `herald <folder>` when several checkouts are compared */
  server: string;
  peakRssBytes: number;
  /** CPU time of the server process per request, from the start of the load until it is idle again */
  cpuMsPerRequest: number;
  /** the round it was measured in (BENCH_ROUNDS), from 0: herald is compared with its own round's baseline */
  round: number;
  /** a baseline's row: which tables it writes into */
  baseline?: BaselineSchema;
}

export interface Endpoint {
  path: string;
  /** its name in BENCH_ENDPOINTS (default: the path after /hooks/) */
  name?: string;
  /** the row's label (default: the path) */
  label?: string;
  /** the baseline's path for the same work (default: the same path) */
  baselinePath?: string;
  /** the request body for a run tagged `tag`; `{n}` becomes the request's number */
  body: (tag: string) => string;
  /** a signed webhook: the sender's headers for one load run (`{n}` as in the body), each body signed, no token */
  signed?: { headers: () => Record<string, string>; signing: typeof GITHUB_SIGNING };
}

// a different text per request: the main session skips an event equal to the one before it
const endpoints: Endpoint[] = [
  { path: '/hooks/wake', body: (tag) => JSON.stringify({ text: `${tag} event {n}: the nightly export finished` }) },
  {
    path: '/hooks/agent',
    body: (tag) => JSON.stringify({ message: `${tag} message {n}: summarise the open tickets`, name: 'Bench', deliver: false }),
  },
  // the same herald requests against a baseline that executes its runs too (bench/baseline-runs.ts):
  // what herald's run execution costs beyond the durable work any executor does
  {
    path: '/hooks/agent',
    name: 'agent-executed',
    label: '/hooks/agent, both execute runs',
    baselinePath: '/hooks/agent-executed',
    body: (tag) => JSON.stringify({ message: `${tag} message {n}: summarise the open tickets`, name: 'Bench', deliver: false }),
  },
  // mapped hooks (bench/mapped-hook.ts): JSON Schema + JSONata templates, then a wake or an agent run
  { path: '/hooks/mapped-wake', body: (tag) => MAPPED_BODY.replace('{n}', `${tag} {n}`) },
  { path: '/hooks/mapped-agent', body: (tag) => MAPPED_BODY.replace('{n}', `${tag} {n}`) },
  {
    path: '/hooks/mapped-agent',
    name: 'mapped-agent-executed',
    label: '/hooks/mapped-agent, both execute runs',
    baselinePath: '/hooks/mapped-agent-executed',
    body: (tag) => MAPPED_BODY.replace('{n}', `${tag} {n}`),
  },
  // a mapped direct tool call (bench/mapped-hook.ts): accepted as mapped-agent is (the baseline's
  // mapped-agent path does that work), then executed by calling the echo MCP server in its own process
  // instead of the embedded model
  {
    path: '/hooks/mapped-tool',
    label: '/hooks/mapped-tool, a direct tool call',
    baselinePath: '/hooks/mapped-agent',
    body: (tag) => MAPPED_BODY.replace('{n}', `${tag} {n}`),
  },
  // a signed preset webhook (bench/signed-hook.ts): the github preset's signature, routing, templates
  // and delivery id (an idempotency record per delivery), against a baseline doing the same
  // (bench/baseline-signed.ts); the mapped-agent row above is the same kind of work unsigned
  {
    path: SIGNED_PATH,
    name: 'github',
    label: `${SIGNED_PATH}, a signed preset webhook`,
    // the tag in the title: the delivery ids (the preset's key) are new per load run already
    body: (tag) => SIGNED_BODY.replace('{n}: ', `{n} ${tag}: `),
    signed: { headers: signedHeaders, signing: GITHUB_SIGNING },
  },
];

export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): HooksBenchOptions {
  const number = (name: string, fallback: number) => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
    return value;
  };
  return {
    durationSeconds: number('BENCH_DURATION', 10),
    warmupSeconds: number('BENCH_WARMUP', 3),
    connections: number('BENCH_CONNECTIONS', 50),
    cpuProfileDir: env.BENCH_CPU_PROFILE || undefined,
    baselineCpuProfileDir: env.BENCH_BASELINE_CPU_PROFILE || undefined,
    heraldRoots: list(env.BENCH_HERALD_ROOT).map((root) => path.resolve(root)),
    endpoints: env.BENCH_ENDPOINTS ? list(env.BENCH_ENDPOINTS).map((e) => e.replace(/^\/?(hooks\/)?/, '')) : undefined,
    logLevel: env.BENCH_LOG_LEVEL || 'warn',
    rounds: Math.max(1, Math.floor(number('BENCH_ROUNDS', 1))),
    baselineSchemas: baselineSchemasOf(env.BENCH_BASELINE_SCHEMA),
    perfFile: env.BENCH_PERF ? path.resolve(env.BENCH_PERF) : undefined,
    tracing: tracingOf(env.BENCH_TRACING),
  };
}

/** `sync`: the dirty pages of the page cache written to disk now, not during the next measurement */
const flushPageCache = () => void spawnSync('sync');

const nameOf = (e: Endpoint) => e.name ?? e.path.replace('/hooks/', '');

function tracingOf(value: string | undefined): ('off' | 'on')[] {
  const modes = list(value || 'off');
  const bad = modes.find((m) => m !== 'off' && m !== 'on');
  if (bad) throw new Error(`BENCH_TRACING: "${bad}" is not off or on (e.g. BENCH_TRACING=off,on)`);
  return modes as ('off' | 'on')[];
}

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export interface Servers {
  heralds: ChildServer[];
  baselines: Map<ChildServer, BaselineSchema>;
  /** each server's SQLite file */
  storeFiles: Map<ChildServer, string>;
  /** the echo MCP server of the mapped-tool row, when it runs */
  echo?: ChildServer;
}

export async function startServers(dir: string, options: HooksBenchOptions): Promise<Servers> {
  const logEnv = { HERALD_LOG_LEVEL: options.logLevel };
  // the mapped-tool row's MCP server, in its own process so its CPU is not herald's
  const echo = !options.endpoints || options.endpoints.includes('mapped-tool') ? await startChildServer({ name: 'mcp-echo', args: ['--import', 'tsx', path.join(ROOT, 'bench/mcp-echo-server.ts')], cwd: ROOT }) : undefined;
  const profile = cpuProfileArgs(options.cpuProfileDir);
  const roots = options.heraldRoots.length ? options.heraldRoots : [ROOT];
  const heralds: ChildServer[] = [];
  const storeFiles = new Map<ChildServer, string>();
  // tracing on: every trace recorded (OTEL_TRACES_SAMPLER's default) and exported to a sink that drops it
  const sink = options.tracing.includes('on') ? await startOtlpSink() : undefined;
  const variants = roots.flatMap((root) => options.tracing.map((tracing) => ({ root, tracing })));
  const baselines = new Map<ChildServer, BaselineSchema>();
  try {
    for (const [i, { root, tracing }] of variants.entries()) {
      // each herald its own store: one's leftover rows must not weigh on the other's inserts
      const config = path.join(dir, `herald-${i}`, 'herald.json');
      fs.mkdirSync(path.dirname(config), { recursive: true });
      fs.writeFileSync(
        config,
        JSON.stringify(
          {
            gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
            hooks: { enabled: true, token: HOOK_TOKEN, mappings: [...mappedHookMappings(), ...(echo ? [mappedToolMapping()] : [])], presets: [GITHUB_PRESET] },
            ...(echo && { tools: { mcpServers: { echo: { url: echo.url } } } }),
            heartbeat: { every: '0' },
            storage: { sqlite: './data/herald.db' },
          },
          null,
          2,
        ),
      );
      const herald = await startChildServer({
        name: [roots.length > 1 ? `herald ${path.basename(root)}` : 'herald', options.tracing.length > 1 ? `tracing ${tracing}` : ''].filter(Boolean).join(', '),
        args: [...profile, path.join(root, 'bin/herald.mjs'), 'serve', '--config', config],
        cwd: root,
        env: tracing === 'on' ? { ...logEnv, OTEL_EXPORTER_OTLP_ENDPOINT: sink!.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' } : logEnv,
      });
      heralds.push(herald);
      storeFiles.set(herald, path.join(path.dirname(config), 'data', 'herald.db'));
    }
    // bundled and run by node alone, as herald runs its build: under tsx the baseline also carried tsx's
    // loader thread (about 28 MB of RSS), which flattered herald's peak RSS against it
    const baselineScript = await compiledBaseline();
    for (const schema of options.baselineSchemas) {
      const baselineDb = path.join(dir, `baseline-${schema}`, 'baseline.db');
      prepareBaselineDatabase(baselineDb, schema);
      const baseline = await startChildServer({
        name: `baseline ${schema === 'own' ? 'same-records' : 'herald-schema'}`,
        args: [...cpuProfileArgs(options.baselineCpuProfileDir), baselineScript],
        cwd: ROOT,
        env: { ...logEnv, BASELINE_DB: baselineDb, BASELINE_TOKEN: HOOK_TOKEN, BASELINE_GITHUB: JSON.stringify(githubBaselineConfig()) },
      });
      baselines.set(baseline, schema);
      storeFiles.set(baseline, baselineDb);
    }
  } catch (error) {
    // a server that did not start stops the bench: none of those started before it is left running
    await Promise.all([...heralds, ...baselines.keys(), ...(echo ? [echo] : [])].map((server) => server.stop()));
    throw error;
  }
  return { heralds, baselines, storeFiles, ...(echo && { echo }) };
}

/** the runs a server's file holds queued or running, read beside the server (WAL: a reader does not stop its writer) */
function unfinishedRuns(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'running')").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

type Measured = Omit<HooksBenchRow, 'endpoint' | 'server' | 'round'> & { window: Pick<PerfWindow, 'fromNs' | 'toNs'> };

/** the endpoint BENCH_ENDPOINTS calls `name` */
export function endpointNamed(name: string): Endpoint {
  const endpoint = endpoints.find((e) => nameOf(e) === name);
  if (!endpoint) throw new Error(`no endpoint ${name}: one of ${endpoints.map(nameOf).join(', ')}`);
  return endpoint;
}

/** `endpoint`'s requests (tagged `tag`) to `path` of `server`, from another process, for `durationSeconds` */
export function loadHook(server: ChildServer, path: string, endpoint: Endpoint, connections: number, tag: string, durationSeconds: number): Promise<LoadResult> {
  return runLoad({
    url: server.url,
    path,
    headers: endpoint.signed ? endpoint.signed.headers() : { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
    body: endpoint.body(tag),
    signing: endpoint.signed?.signing,
    connections,
    durationSeconds,
  });
}

async function measure(server: ChildServer, storeFile: string, path: string, endpoint: Endpoint, options: HooksBenchOptions): Promise<Measured> {
  const load = (tag: string, durationSeconds: number) => loadHook(server, path, endpoint, options.connections, tag, durationSeconds);
  if (options.warmupSeconds > 0) {
    await load('warm-up', options.warmupSeconds);
    await waitUntilIdle(server.pid);
  }
  const memory = trackPeakMemory(server.pid);
  const cpuBefore = cpuMillis(server.pid);
  const fromNs = process.hrtime.bigint();
  const result = await load('bench', options.durationSeconds);
  const leftAtEnd = executesRuns(nameOf(endpoint)) ? unfinishedRuns(storeFile) : 0;
  const drainMs = await waitUntilIdle(server.pid);
  const cpuMsPerRequest = (cpuMillis(server.pid) - cpuBefore) / Math.max(1, result.total);
  return {
    ...result, peakRssBytes: memory.stop(), cpuMsPerRequest, drainMs, window: { fromNs, toNs: process.hrtime.bigint() },
    ...(executesRuns(nameOf(endpoint)) && {
      executedPerSecond: executedPerSecond(result.total, options.durationSeconds, drainMs),
      finishedDuringLoad: Math.max(0, 1 - leftAtEnd / Math.max(1, result.total)),
    }),
  };
}

/** the baselines present in the rows, the same-records one first: one pair of columns each */
const schemasIn = (rows: HooksBenchRow[]) => (['own', 'herald'] as const).filter((schema) => rows.some((r) => r.baseline === schema));

/** `herald/<baseline>`, `CPU vs it` and `RSS vs it` (peak RSS), for each baseline */
function ratioColumns(rows: HooksBenchRow[]): string[] {
  return schemasIn(rows).flatMap((schema) => [`of ${BASELINE_LABEL[schema]}`, 'CPU vs it', 'RSS vs it']);
}

type Compared = Pick<HooksBenchRow, 'requestsPerSecond' | 'cpuMsPerRequest' | 'peakRssBytes'>;

const ratioCells = (r: Compared, base: Compared | undefined) =>
  base
    ? [
        `${((r.requestsPerSecond / base.requestsPerSecond) * 100).toFixed(0)}%`,
        `${(r.cpuMsPerRequest / base.cpuMsPerRequest).toFixed(2)}x`,
        `${(r.peakRssBytes / base.peakRssBytes).toFixed(2)}x`,
      ]
    : ['', '', ''];

export function renderHooksTable(rows: HooksBenchRow[]): string {
  const baselineOf = (row: HooksBenchRow, schema: BaselineSchema) =>
    baselineMean(rows.filter((r) => r.endpoint === row.endpoint && r.round === row.round && r.baseline === schema));
  return formatTable(
    ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'CPU ms/req', ...ratioColumns(rows)],
    rows.map((r) => [
      `POST ${r.endpoint}`, r.server, r.requestsPerSecond.toFixed(0), ms(r.latencyP50Ms), ms(r.latencyP99Ms), mb(r.peakRssBytes), r.cpuMsPerRequest.toFixed(3),
      ...schemasIn(rows).flatMap((schema) => ratioCells(r, isBaseline(r) ? undefined : baselineOf(r, schema))),
    ]),
  );
}

const isBaseline = (r: HooksBenchRow) => r.baseline !== undefined;

/** with several rounds: each herald's mean per endpoint, its ratios taken against its own round's baseline */
export function renderMeansTable(rows: HooksBenchRow[]): string {
  const lines: string[][] = [];
  for (const endpoint of [...new Set(rows.map((r) => r.endpoint))]) {
    for (const server of [...new Set(rows.filter((r) => r.endpoint === endpoint && !isBaseline(r)).map((r) => r.server))]) {
      const measured = rows.filter((r) => r.endpoint === endpoint && r.server === server);
      const mean = (pick: (r: HooksBenchRow) => number) => measured.reduce((sum, r) => sum + pick(r), 0) / measured.length;
      const against = (schema: BaselineSchema) => {
        const base = (r: HooksBenchRow) => baselineMean(rows.filter((b) => b.endpoint === endpoint && b.round === r.round && b.baseline === schema))!;
        return [
          `${(mean((r) => r.requestsPerSecond / base(r).requestsPerSecond) * 100).toFixed(0)}%`,
          `${mean((r) => r.cpuMsPerRequest / base(r).cpuMsPerRequest).toFixed(2)}x`,
          `${mean((r) => r.peakRssBytes / base(r).peakRssBytes).toFixed(2)}x`,
        ];
      };
      lines.push([
        `POST ${endpoint}`,
        server,
        String(measured.length),
        mean((r) => r.requestsPerSecond).toFixed(0),
        mean((r) => r.cpuMsPerRequest).toFixed(3),
        mb(mean((r) => r.peakRssBytes)),
        ...schemasIn(rows).flatMap(against),
      ]);
    }
  }
  return formatTable(['endpoint', 'server', 'rounds', 'mean req/s', 'mean CPU ms/req', 'mean peak RSS MB', ...ratioColumns(rows)], lines);
}

/**
 * What herald is compared with: the mean of the baseline's measurements of an endpoint (first and
 * last: one figure alone moved the ratio by up to ±8 points between runs on a shared machine)
 */
function baselineMean(measured: HooksBenchRow[]): Compared | undefined {
  if (!measured.length) return undefined;
  const mean = (pick: (r: HooksBenchRow) => number) => measured.reduce((sum, r) => sum + pick(r), 0) / measured.length;
  return { requestsPerSecond: mean((r) => r.requestsPerSecond), cpuMsPerRequest: mean((r) => r.cpuMsPerRequest), peakRssBytes: mean((r) => r.peakRssBytes) };
}

/** runs the benchmark and prints the table; resolves with the rows */
export async function run(options: HooksBenchOptions = optionsFromEnv()): Promise<HooksBenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  console.log(
    `webhook benchmark: ${options.connections} connections, ${options.durationSeconds}s per run after a ${options.warmupSeconds}s warm-up; ` +
      `node ${process.version}, ${os.cpus().length} CPUs (load average ${os.loadavg()[0]!.toFixed(1)}); load generator, herald and baseline share this machine`,
  );
  const { heralds, baselines, storeFiles, echo } = await startServers(dir, options);
  const servers = [...baselines.keys(), ...heralds];
  const chosen = options.endpoints ? endpoints.filter((e) => options.endpoints!.includes(nameOf(e))) : endpoints;
  if (!chosen.length) throw new Error(`BENCH_ENDPOINTS names none of ${endpoints.map(nameOf).join(', ')}`);
  const rows: HooksBenchRow[] = [];
  let perf: PerfRecording | undefined;
  const windows: PerfWindow[] = [];
  try {
    if (options.perfFile) perf = await PerfRecording.start(options.perfFile, servers.map((s) => s.pid));
    for (const endpoint of chosen) {
      for (let round = 0; round < options.rounds; round++) {
        // the baselines first and again last (in reverse), herald compared with each one's mean: the
        // machine's speed drifts during a run; every server is idle before each measurement (herald
        // keeps executing accepted runs after its phase, and that leftover work must not overlap the
        // next one). Each round starts the heralds' order one further along, and the baselines' too:
        // the one measured first was favoured
        const firsts = [...baselines.keys()];
        const bases = [...firsts.slice(round % firsts.length), ...firsts.slice(0, round % firsts.length)];
        const order = [...bases, ...heralds.slice(round % heralds.length), ...heralds.slice(0, round % heralds.length), ...[...bases].reverse()];
        const seen = new Set<ChildServer>();
        for (const server of order) {
          for (const s of servers) await waitUntilIdle(s.pid);
          // the kernel writes back the page cache the previous server dirtied (its WAL, its database):
          // left to run during the next measurement, that writeback slowed whichever server came next
          // (the same herald measured second of two read 10-20% more CPU per request than first)
          flushPageCache();
          const schema = baselines.get(server);
          const name = seen.has(server) ? `${server.name} again` : server.name;
          seen.add(server);
          const label = endpoint.label ?? endpoint.path;
          process.stdout.write(`  POST ${label} on ${name}${options.rounds > 1 ? ` (round ${round + 1})` : ''} ... `);
          const { window, ...result } = await measure(server, storeFiles.get(server)!, schema ? (endpoint.baselinePath ?? endpoint.path) : endpoint.path, endpoint, options);
          const row: HooksBenchRow = { endpoint: label, server: name, round, ...result, ...(schema && { baseline: schema }) };
          rows.push(row);
          windows.push({ endpoint: label, server: name, pid: server.pid, ...window, cpuMsPerRequest: row.cpuMsPerRequest });
          const faults = row.non2xx + row.errors + row.timeouts;
          console.log(`${row.requestsPerSecond.toFixed(0)} req/s${faults ? `, ${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts` : ''}`);
        }
      }
    }
  } finally {
    await perf?.stop();
    await Promise.all([...servers, ...(echo ? [echo] : [])].map((s) => s.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  }

  console.log('');
  console.log(renderHooksTable(rows));
  console.log('');
  if (options.rounds > 1) {
    console.log(`Means over ${options.rounds} rounds, the servers' order rotated each round (ratios against each round's own baselines):`);
    console.log(renderMeansTable(rows));
    console.log('');
  }
  if (rows.some((r) => r.executedPerSecond !== undefined)) {
    console.log('Where both execute runs, by the work finished: requests accepted per second from the load\'s start until every run they made had been executed (drain: how long that took after the load; finished in the load: the share of the runs accepted during the load that were finished when it ended):');
    console.log(renderExecutedTable(rows));
    console.log('');
  }
  if (perf) {
    console.log(`Where each measurement's CPU per request ran, in µs, by perf's samples of the server over its load and drain (${options.perfFile}): JavaScript is the JIT's code, V8 and node their binary (runtime, built-ins, garbage collector); off the main thread, the part of the CPU spent on other threads (V8's compiler and collector helpers, libuv's pool), whatever the code:`);
    console.log(renderPerfSplit(perf.split(windows)));
    console.log('');
  }
  console.log('Notes:');
  console.log('- "of <baseline>" compares req/s with the mean of that baseline\'s two measurements (before herald and after it). CPU ms/req is the server process\'s CPU time from the start of the load until it is idle');
  console.log('  again, per request: it includes work done after the response (agent runs, heartbeats) and is steadier than req/s on a busy machine.');
  console.log('  "CPU vs it" is herald\'s CPU ms/req over that baseline\'s. "RSS vs it" is herald\'s peak RSS over that baseline\'s: each server\'s');
  console.log('  highest resident memory from the start of the load until it is idle again (the kernel\'s high-water mark, reset at the');
  console.log('  start), both run by node alone (herald from its build, the baseline bundled by esbuild), after the same warm-up.');
  console.log(`- herald logs at level ${options.logLevel} (BENCH_LOG_LEVEL)${options.logLevel === 'warn' ? ': no per-request access log line' : ''}; the baseline writes no log.`);
  console.log('- Both do per request: bearer auth (constant-time), body read under the 256 KiB limit, JSON parse, field validation,');
  console.log('  and the same durable SQLite insert (better-sqlite3, WAL) with the same group commit (the writes of two event-loop turns in');
  console.log('  one transaction) before responding: an events row for wake, a runs row for agent; after the response, both write the');
  console.log('  request\'s receipt (the same receipts row, a UUID v7 id, through the same group commit). Both keep each session\'s');
  console.log('  newest event and its pending ids in memory between group commits: an enqueue inserts and drops by id.');
  if (options.baselineSchemas.includes('own')) console.log('- The same-records baseline writes the same records into tables of its own, with only the indexes its reads need: herald\'s list indexes and /metrics counts are extra work herald does.');
  if (options.baselineSchemas.includes('herald')) console.log('- The herald-schema baseline writes into a file made by herald\'s migrations: the same indexes and counting triggers as herald.');
  console.log('- mapped-wake / mapped-agent: both validate the payload with ajv (+ ajv-formats, compiled once) and render JSONata templates');
  console.log('  (bench/mapped-hook.ts) before the same insert; herald also copies the payload without prototype keys first.');
  console.log('- mapped-tool: herald accepts it as mapped-agent (schema, templates, a runs row before the 202), then executes each run by');
  console.log('  calling echo on an MCP server in its own process (bench/mcp-echo-server.ts, Streamable HTTP) instead of asking the embedded');
  console.log('  model, each call recorded in tool_calls before and after; compared with the baseline\'s mapped-agent path, which only inserts.');
  console.log('- github (a signed preset webhook): no token; both check X-Hub-Signature-256 (HMAC-SHA256 of the raw body, constant-time');
  console.log('  compare) before the JSON parse, route by X-GitHub-Event and action (herald by the preset\'s predicates, the baseline in code),');
  console.log('  render the preset\'s issue templates with JSONata, and keep the delivery\'s idempotency record (X-GitHub-Delivery) with the run;');
  console.log('  both write the key and the run in one group commit (herald: RunsRepo.insertKeyed; the baseline: bench/baseline-signed.ts),');
  console.log('  and both execute each delivery\'s run afterwards.');
  console.log('- herald also does what the baseline does not: after a wake (mode now) it runs heartbeat turns with the embedded model,');
  console.log('  and after each 202 of /hooks/agent it executes the run with the embedded model (session transcript, summary event),');
  console.log('  in the same process while the load goes on. The baseline only inserts the row, except in the rows "both execute runs",');
  console.log('  where it executes each run too (bench/baseline-runs.ts: claim, history read, a canned answer, the run\'s status and reply, the');
  console.log('  turn\'s two messages, the session summary and the main-session event, in the same group commit; the runs a group commit');
  console.log('  completes claim their next runs in it, as herald\'s do).');
  const faulty = rows.filter((r) => r.non2xx + r.errors + r.timeouts > 0);
  for (const r of faulty) console.log(`! ${r.server} ${r.endpoint}: ${r.non2xx} non-2xx responses, ${r.errors} errors, ${r.timeouts} timeouts`);
  if (options.cpuProfileDir) console.log(`herald CPU profile written to ${path.resolve(options.cpuProfileDir)}`);
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await run();
