import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { migrate } from '../src/store/postgres/migrate.js';
import { BASELINE_LABEL, type BaselineSchema } from './baseline-database.js';
import { cpuProfileArgs, startChildServer, type ChildServer } from './child-server.js';
import { CpuQuota } from './cpu-quota.js';
import { optionsFromEnv, type HooksBenchOptions } from './hooks.bench.js';
import { runLoad, type LoadResult } from './load.js';
import { PgBackendCpu } from './pg-backend-cpu.js';
import { executedPerSecond, executesRuns, renderExecutedTable, type ExecutedRow } from './executed-table.js';
import { cpuMillis, waitUntilIdle } from './process-stats.js';
import { formatTable, ms } from './table.js';

/**
 * The webhook benchmark on PostgreSQL: herald with one replica and with two on one schema (the
 * load split evenly between them) against the raw node:http baseline keeping the same records in
 * PostgreSQL (bench/baseline-pg-store.ts: the events function for a wake; a runs row for an agent
 * request, executed by the baseline too; a receipt row per request; the wakes, receipts and runs
 * batched as herald's adapter batches them, its per-request statements named), the load from separate
 * processes (bench/load-worker.ts).
 * Two baselines, as the SQLite bench: one on tables of its own with only the indexes its reads
 * need (same records), one on a schema made by herald's migrations (herald's indexes and triggers).
 * CPU per request is the server processes' AND their PostgreSQL backends' (bench/pg-backend-cpu.ts).
 *
 * Env: the BENCH_* options of bench/hooks.bench.ts that apply (BENCH_DURATION, BENCH_WARMUP,
 * BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_ENDPOINTS=wake,agent-executed, BENCH_CPU_PROFILE: each
 * replica under --cpu-prof, BENCH_BASELINE_SCHEMA=own|herald: that baseline alone), BENCH_PG_REPLICAS=1
 * (one replica only: no ×2 setups, for a quicker before/after), BENCH_PG_URL (default the local test database), BENCH_PG_POOL
 * (herald's poolSize, default 10), BENCH_HERALD_ROOT=<checkout>[,<checkout>] (each checkout's
 * herald measured ×1 and ×2 in the same run, labelled by its folder's name; default this one),
 * BENCH_REPLICA_CPU=<cores> (each server process, herald's replicas and the baselines alike, held to
 * that many cores by a cgroup quota of its own, bench/cpu-quota.ts: each as on a host of its own,
 * PostgreSQL and the load generators sharing what is left; needs root).
 * Each run uses fresh schemas, dropped after.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const POOL_SIZE = Number(process.env.BENCH_PG_POOL ?? 10);

/** how the servers are set up: from BENCH_PG_REPLICAS and BENCH_REPLICA_CPU when run alone */
export interface ReplicaSetup {
  /** the ×2 setups too (BENCH_PG_REPLICAS=1: the one-replica setups alone, about half the run) */
  pairs: boolean;
  /** each server process held to that many cores, as on a host of its own (BENCH_REPLICA_CPU) */
  replicaCpu?: number;
}

export const replicaSetupFromEnv = (env: NodeJS.ProcessEnv = process.env): ReplicaSetup => ({
  pairs: env.BENCH_PG_REPLICAS !== '1',
  ...(env.BENCH_REPLICA_CPU && { replicaCpu: Number(env.BENCH_REPLICA_CPU) }),
});

export interface PostgresBenchRow extends LoadResult, ExecutedRow {
  endpoint: string;
  server: string;
  round: number;
  baseline?: BaselineSchema;
  /** CPU of the server process(es) per request, from the load's start until they are idle again */
  serverCpuMs: number;
  /** CPU of their PostgreSQL backends per request, over the same span */
  pgCpuMs: number;
  /** how long after the load the schema still held unfinished runs */
  drainMs: number;
}

interface Endpoint {
  name: string;
  label: string;
  path: string;
  baselinePath: string;
  body: (tag: string) => string;
}

// `{n}` becomes the request's number in the load generator: the main session skips an event equal to the one before it
const endpoints: Endpoint[] = [
  { name: 'wake', label: '/hooks/wake', path: '/hooks/wake', baselinePath: '/hooks/wake', body: (tag) => JSON.stringify({ text: `${tag} event {n}: the nightly export finished` }) },
  {
    name: 'agent-executed',
    label: '/hooks/agent, both execute runs',
    path: '/hooks/agent',
    baselinePath: '/hooks/agent-executed',
    body: (tag) => JSON.stringify({ message: `${tag} message {n}: summarise the open tickets`, name: 'Bench', deliver: false }),
  },
];

interface Setup {
  label: string;
  servers: ChildServer[];
  /** the application names of their PostgreSQL connections */
  applications: string[];
  /** the schema they write into */
  schema: string;
  baseline?: BaselineSchema;
  /** raw baseline servers, answering the baseline's paths (the pair's too) */
  raw?: boolean;
}

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** a schema made by herald's own migrations, for the herald-schema baseline */
async function heraldSchema(schema: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  try {
    await migrate(pool, schema);
  } finally {
    await pool.end();
  }
}

function heraldReplica(dir: string, name: string, schema: string, options: HooksBenchOptions, root = ROOT): Promise<ChildServer> {
  const configFile = path.join(dir, `${name}.json`);
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: HOOK_TOKEN },
      heartbeat: { every: '0' },
      storage: { postgres: { url: PG_URL, schema, poolSize: POOL_SIZE } },
    }),
  );
  return startChildServer({
    name,
    args: [...cpuProfileArgs(options.cpuProfileDir), path.join(root, 'bin/herald.mjs'), 'serve', '--config', configFile],
    cwd: root,
    env: { HERALD_LOG_LEVEL: options.logLevel },
  });
}

function baselineServer(schema: string, tables: BaselineSchema, options: HooksBenchOptions): Promise<ChildServer> {
  return startChildServer({
    name: BASELINE_LABEL[tables],
    args: [...cpuProfileArgs(options.baselineCpuProfileDir), '--import', 'tsx', path.join(ROOT, 'bench/baseline-server.ts')],
    cwd: ROOT,
    env: { BASELINE_PG_URL: PG_URL, BASELINE_PG_SCHEMA: schema, BASELINE_PG_TABLES: tables, BASELINE_TOKEN: HOOK_TOKEN },
  });
}

/** the same load spread over the setup's servers at once (connections split): req/s summed, the worst p50/p99 */
async function loadOn(setup: Setup, endpoint: Endpoint, tag: string, options: HooksBenchOptions, seconds: number): Promise<LoadResult> {
  const results = await Promise.all(
    setup.servers.map((server, i) =>
      runLoad({
        url: server.url,
        path: setup.raw ? endpoint.baselinePath : endpoint.path,
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
        body: endpoint.body(`${tag}-${i}`),
        connections: Math.max(1, Math.round(options.connections / setup.servers.length)),
        durationSeconds: seconds,
      }),
    ),
  );
  const sum = (pick: (r: LoadResult) => number) => results.reduce((s, r) => s + pick(r), 0);
  return {
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    latencyP50Ms: Math.max(...results.map((r) => r.latencyP50Ms)),
    latencyP99Ms: Math.max(...results.map((r) => r.latencyP99Ms)),
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
  };
}

async function measure(setup: Setup, endpoint: Endpoint, options: HooksBenchOptions, backends: PgBackendCpu): Promise<Omit<PostgresBenchRow, 'endpoint' | 'server' | 'round'>> {
  if (options.warmupSeconds > 0) {
    await loadOn(setup, endpoint, 'warm-up', options, options.warmupSeconds);
    for (const s of setup.servers) await waitUntilIdle(s.pid);
  }
  const pgBefore = await backends.snapshot(setup.applications);
  const serverBefore = setup.servers.map((s) => cpuMillis(s.pid));
  const result = await loadOn(setup, endpoint, 'bench', options, options.durationSeconds);
  const { drainMs, leftAtEnd } = await untilRunsFinished(setup.schema);
  for (const s of setup.servers) await waitUntilIdle(s.pid);
  const serverMs = setup.servers.reduce((sum, s, i) => sum + cpuMillis(s.pid) - serverBefore[i]!, 0);
  const pgMs = await backends.since(pgBefore, setup.applications);
  const per = Math.max(1, result.total);
  return {
    ...result, serverCpuMs: serverMs / per, pgCpuMs: pgMs / per, drainMs,
    ...(executesRuns(endpoint.name) && {
      executedPerSecond: executedPerSecond(result.total, options.durationSeconds, drainMs),
      finishedDuringLoad: Math.max(0, 1 - leftAtEnd / per),
    }),
    ...(setup.baseline && { baseline: setup.baseline }),
  };
}

/**
 * The runs left unfinished when the load ended, and how long the schema's runs took to finish
 * after it: read from the database, not from the servers' CPU, since a server waiting on
 * PostgreSQL's work looks idle while runs are left
 */
async function untilRunsFinished(schema: string): Promise<{ drainMs: number; leftAtEnd: number }> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const started = Date.now();
  try {
    const unfinished = `SELECT count(*)::int AS left FROM "${schema}".runs WHERE status IN ('queued', 'running')`;
    const leftAtEnd = (await client.query<{ left: number }>(unfinished)).rows[0]!.left;
    for (let left = leftAtEnd; ; left = (await client.query<{ left: number }>(unfinished)).rows[0]!.left) {
      if (left === 0 || Date.now() - started > 300_000) return { drainMs: Date.now() - started, leftAtEnd };
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await client.end();
  }
}

const totalCpu = (r: Pick<PostgresBenchRow, 'serverCpuMs' | 'pgCpuMs'>) => r.serverCpuMs + r.pgCpuMs;
const schemasIn = (rows: PostgresBenchRow[]) => (['own', 'herald'] as const).filter((schema) => rows.some((r) => r.baseline === schema));

/** a baseline's figures in a round: the mean of its measurements (before the heralds and after) */
function baselineOf(rows: PostgresBenchRow[], endpoint: string, round: number, schema: BaselineSchema) {
  const measured = rows.filter((r) => r.endpoint === endpoint && r.round === round && r.baseline === schema);
  if (!measured.length) return undefined;
  const mean = (pick: (r: PostgresBenchRow) => number) => measured.reduce((s, r) => s + pick(r), 0) / measured.length;
  return { requestsPerSecond: mean((r) => r.requestsPerSecond), cpu: mean(totalCpu) };
}

function ratios(rows: PostgresBenchRow[], measured: PostgresBenchRow[]): string[] {
  return schemasIn(rows).flatMap((schema) => {
    const pairs = measured.map((r) => ({ r, base: baselineOf(rows, r.endpoint, r.round, schema)! }));
    const mean = (pick: (p: (typeof pairs)[number]) => number) => pairs.reduce((s, p) => s + pick(p), 0) / pairs.length;
    return [`${(mean((p) => p.r.requestsPerSecond / p.base.requestsPerSecond) * 100).toFixed(0)}%`, `${mean((p) => totalCpu(p.r) / p.base.cpu).toFixed(2)}x`];
  });
}

const ratioHeader = (rows: PostgresBenchRow[]) => schemasIn(rows).flatMap((schema) => [`of ${BASELINE_LABEL[schema]}`, 'CPU vs it']);

export function renderPostgresTable(rows: PostgresBenchRow[]): string {
  return formatTable(
    ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'pg CPU ms/req', 'CPU ms/req', ...ratioHeader(rows)],
    rows.map((r) => [
      `POST ${r.endpoint}`, r.server, r.requestsPerSecond.toFixed(0), ms(r.latencyP50Ms), ms(r.latencyP99Ms),
      r.serverCpuMs.toFixed(3), r.pgCpuMs.toFixed(3), totalCpu(r).toFixed(3),
      ...(r.baseline ? ratioHeader(rows).map(() => '') : ratios(rows, [r])),
    ]),
  );
}

/** with several rounds: each herald setup's mean per endpoint, its ratios against its own round's baselines */
export function renderPostgresMeans(rows: PostgresBenchRow[]): string {
  const lines: string[][] = [];
  for (const endpoint of [...new Set(rows.map((r) => r.endpoint))]) {
    for (const server of [...new Set(rows.filter((r) => r.endpoint === endpoint && !r.baseline).map((r) => r.server))]) {
      const measured = rows.filter((r) => r.endpoint === endpoint && r.server === server);
      const mean = (pick: (r: PostgresBenchRow) => number) => measured.reduce((s, r) => s + pick(r), 0) / measured.length;
      lines.push([`POST ${endpoint}`, server, String(measured.length), mean((r) => r.requestsPerSecond).toFixed(0), mean(totalCpu).toFixed(3), ...ratios(rows, measured)]);
    }
  }
  return formatTable(['endpoint', 'server', 'rounds', 'mean req/s', 'mean CPU ms/req', ...ratioHeader(rows)], lines);
}

/**
 * Each ×2 setup against its ×1 in the same round, by req/s, CPU per request and the work finished:
 * the raw baseline's pair says what this machine lets two replicas gain, herald's is read against it
 */
export function renderPairTable(rows: PostgresBenchRow[]): string {
  const lines: string[][] = [];
  for (const endpoint of [...new Set(rows.map((r) => r.endpoint))]) {
    for (const pairLabel of [...new Set(rows.filter((r) => r.endpoint === endpoint && r.server.includes(' ×2')).map((r) => r.server))]) {
      const aloneLabel = pairLabel.replace(' ×2', pairLabel.startsWith('herald') ? ' ×1' : '');
      const pairs = rows
        .filter((r) => r.endpoint === endpoint && r.server === pairLabel)
        .map((two) => {
          const ones = rows.filter((r) => r.endpoint === endpoint && r.round === two.round && r.server.replace(/ again$/, '') === aloneLabel);
          const mean = (pick: (r: PostgresBenchRow) => number) => ones.reduce((s, r) => s + pick(r), 0) / ones.length;
          return { two, one: { requestsPerSecond: mean((r) => r.requestsPerSecond), cpu: mean(totalCpu), executed: mean((r) => r.executedPerSecond ?? 0) } };
        })
        .filter((p) => p.one.requestsPerSecond > 0);
      if (!pairs.length) continue;
      const mean = (pick: (p: (typeof pairs)[number]) => number) => pairs.reduce((s, p) => s + pick(p), 0) / pairs.length;
      const executed = pairs.every((p) => p.two.executedPerSecond !== undefined && p.one.executed > 0);
      lines.push([
        `POST ${endpoint}`, pairLabel, String(pairs.length),
        `${(mean((p) => p.two.requestsPerSecond / p.one.requestsPerSecond) * 100).toFixed(0)}%`,
        `${mean((p) => totalCpu(p.two) / p.one.cpu).toFixed(2)}x`,
        executed ? `${(mean((p) => p.two.executedPerSecond! / p.one.executed) * 100).toFixed(0)}%` : '',
      ]);
    }
  }
  return formatTable(['endpoint', 'two replicas', 'rounds', 'req/s of one', 'CPU ms/req vs one', 'work finished of one'], lines);
}

export async function run(options: HooksBenchOptions = optionsFromEnv(), { pairs, replicaCpu }: ReplicaSetup = replicaSetupFromEnv()): Promise<PostgresBenchRow[]> {
  const tag = randomBytes(4).toString('hex');
  const roots = options.heraldRoots.length ? options.heraldRoots : [ROOT];
  const schemas = {
    own: `bench_${tag}_own`,
    ownPair: `bench_${tag}_own2`,
    heraldTables: `bench_${tag}_hschema`,
    alone: roots.map((_, i) => `bench_${tag}_herald1_${i}`),
    herald: roots.map((_, i) => `bench_${tag}_herald2_${i}`),
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pg-bench-'));
  console.log(
    `PostgreSQL webhook benchmark: ${PG_URL.replace(/:[^:@/]*@/, ':***@')}, ${options.connections} connections, ${options.durationSeconds}s per run after a ${options.warmupSeconds}s warm-up; ` +
      `${os.cpus().length} CPUs (load average ${os.loadavg()[0]!.toFixed(1)}); load generator, servers and PostgreSQL share this machine` +
      (replicaCpu === undefined ? '' : `, each server process held to ${replicaCpu} cores by a cgroup quota of its own`),
  );
  const started: ChildServer[] = [];
  const quotas: CpuQuota[] = [];
  /** a server started: stopped at the end, and held to its own quota with BENCH_REPLICA_CPU */
  const keep = (...servers: ChildServer[]) => {
    for (const server of servers) {
      started.push(server);
      if (replicaCpu === undefined) continue;
      const quota = CpuQuota.create(`herald-bench-${tag}-${server.pid}`, replicaCpu);
      quotas.push(quota);
      quota.add(server.pid);
    }
  };
  const rows: PostgresBenchRow[] = [];
  const backends = await PgBackendCpu.connect(PG_URL);
  const chosen = options.endpoints ? endpoints.filter((e) => options.endpoints!.includes(e.name)) : endpoints;
  if (!chosen.length) throw new Error(`BENCH_ENDPOINTS names none of ${endpoints.map((e) => e.name).join(', ')}`);
  try {
    await heraldSchema(schemas.heraldTables);
    const measured = (schema: BaselineSchema) => options.baselineSchemas.includes(schema);
    const own = await baselineServer(schemas.own, 'own', options);
    keep(own);
    const heraldTables = measured('herald') ? await baselineServer(schemas.heraldTables, 'herald', options) : undefined;
    if (heraldTables) keep(heraldTables);
    const heralds: Setup[] = [];
    if (pairs) {
      // the same-records baseline twice on one schema of its own: what two replicas gain or lose on
      // this machine when the server is a raw one, the measure herald's ×2 against ×1 is read against
      const pair = [await baselineServer(schemas.ownPair, 'own', options), await baselineServer(schemas.ownPair, 'own', options)];
      keep(...pair);
      heralds.push({ label: `${BASELINE_LABEL.own} ×2`, servers: pair, applications: [`baseline:${schemas.ownPair}`], schema: schemas.ownPair, raw: true });
    }
    for (const [i, root] of roots.entries()) {
      const suffix = roots.length > 1 ? ` (${path.basename(root)})` : '';
      // one replica on a schema of its own: a second replica on its schema would execute part of its runs
      const alone = await heraldReplica(dir, `herald-pg-alone-${i}`, schemas.alone[i]!, options, root);
      keep(alone);
      heralds.push({ label: `herald pg ×1${suffix}`, servers: [alone], applications: [`herald:${schemas.alone[i]}`], schema: schemas.alone[i]! });
      if (!pairs) continue;
      const first = await heraldReplica(dir, `herald-pg-1-${i}`, schemas.herald[i]!, options, root);
      keep(first);
      const second = await heraldReplica(dir, `herald-pg-2-${i}`, schemas.herald[i]!, options, root);
      keep(second);
      heralds.push({ label: `herald pg ×2${suffix}`, servers: [first, second], applications: [`herald:${schemas.herald[i]}`], schema: schemas.herald[i]! });
    }
    const bases: Setup[] = [{ label: BASELINE_LABEL.own, servers: [own], applications: [`baseline:${schemas.own}`], schema: schemas.own, baseline: 'own', raw: true }];
    if (heraldTables) bases.push({ label: BASELINE_LABEL.herald, servers: [heraldTables], applications: [`baseline:${schemas.heraldTables}`], schema: schemas.heraldTables, baseline: 'herald', raw: true });
    for (const endpoint of chosen) {
      for (let round = 0; round < options.rounds; round++) {
        // the baselines before the heralds and again after (herald compared with their mean: the
        // machine's speed drifts), each round starting one further along (going first is favoured)
        const b = [...bases.slice(round % 2), ...bases.slice(0, round % 2)];
        const h = [...heralds.slice(round % heralds.length), ...heralds.slice(0, round % heralds.length)];
        const seen = new Set<Setup>();
        for (const setup of [...b, ...h, ...[...b].reverse()]) {
          for (const s of started) await waitUntilIdle(s.pid);
          const name = seen.has(setup) ? `${setup.label} again` : setup.label;
          seen.add(setup);
          process.stdout.write(`  POST ${endpoint.label} on ${name}${options.rounds > 1 ? ` (round ${round + 1})` : ''} ... `);
          const row: PostgresBenchRow = { endpoint: endpoint.label, server: name, round, ...(await measure(setup, endpoint, options, backends)) };
          rows.push(row);
          const faults = row.non2xx + row.errors + row.timeouts;
          console.log(`${row.requestsPerSecond.toFixed(0)} req/s, ${totalCpu(row).toFixed(3)} CPU ms/req${faults ? `, ${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts` : ''}`);
        }
      }
    }
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    for (const quota of quotas) quota.remove();
    await backends.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await sql([schemas.own, schemas.ownPair, schemas.heraldTables, ...schemas.alone, ...schemas.herald].map((s) => `DROP SCHEMA IF EXISTS ${s} CASCADE;`).join(' ')).catch(() => {});
  }

  console.log('');
  console.log(renderPostgresTable(rows));
  if (options.rounds > 1) {
    console.log('');
    console.log(`Means over ${options.rounds} rounds (ratios against each round's own baselines):`);
    console.log(renderPostgresMeans(rows));
  }
  if (pairs) {
    console.log('');
    console.log('Two replicas against one (each ×2 measurement over its own round\'s ×1; a baseline\'s ×1 is the mean of its two measurements):');
    console.log(renderPairTable(rows));
  }
  if (rows.some((r) => r.executedPerSecond !== undefined)) {
    console.log('');
    console.log('Where both execute runs, by the work finished: requests accepted per second from the load\'s start until the schema held no unfinished run (drain: how long that took after the load; finished in the load: the share of the runs accepted during the load that were finished when it ended):');
    console.log(renderExecutedTable(rows));
  }
  console.log('');
  console.log('Notes:');
  console.log('- CPU ms/req: the server processes\' CPU plus their PostgreSQL backends\' (found by application name), from the load\'s start');
  console.log('  until the servers are idle again (executed runs included), per request; "CPU vs it" compares that sum. PostgreSQL\'s shared');
  console.log('  background processes (WAL writer, checkpointer, autovacuum) are in neither.');
  console.log('- The baselines (bench/baseline-server.ts with BASELINE_PG_URL, bench/baseline-pg-store.ts) keep the same records as herald, on a');
  console.log('  pool of 10, the writes batched as herald\'s adapter batches them, each batch one statement in autocommit: the wakes of an');
  console.log('  event-loop turn in one call of the batched events function and the receipts (after the responses) in one INSERT, one such');
  console.log('  statement in flight (what arrives meanwhile goes in the next); the runs of a turn (agent requests) in one INSERT that also');
  console.log('  lists each new session in the session summaries, sent at once. On "both execute runs" they execute each run too');
  console.log('  (bench/baseline-pg-runs.ts: a SKIP LOCKED claim of up to 32, the history read, a canned answer, the completion in one');
  console.log('  statement: status and reply, the two messages, the session summary, the summary event; claims and completions through a');
  console.log('  group commit, one transaction per turn; the completions asked for while a batch is on its way go in the next, which');
  console.log('  claims as many next runs, as herald\'s completion batch does). The statements sent per request or per run are named (prepared once per');
  console.log('  connection), as herald\'s.');
  console.log('- same-records baseline: tables of its own with only the indexes its reads need; herald-schema baseline: a schema made by');
  console.log('  herald\'s migrations (its indexes, counting triggers and session-summary trigger).');
  console.log(`- herald pg ×2: two \`herald serve\` on one schema (poolSize ${POOL_SIZE} each), the connections split between them; ` +
    (replicaCpu === undefined
      ? 'on this machine they\n  share its CPUs with PostgreSQL and the load generators, so the figure shows contention, not the scale-out of two hosts\n  (BENCH_REPLICA_CPU holds each server to a host\'s share).'
      : `each held to\n  ${replicaCpu} cores as every server here is, as two hosts of their own on one PostgreSQL (which, with the load generators, has the rest).`));
  console.log('- same-records baseline ×2: two such baselines on one schema of their own, the connections split between them: what a second');
  console.log('  replica of a raw server gains or loses on this machine, the measure herald\'s ×2 against ×1 is read against.');
  for (const r of rows.filter((r) => r.non2xx + r.errors + r.timeouts > 0)) console.log(`! ${r.server} ${r.endpoint}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return rows;
}

// alone: `node --import tsx bench/postgres.bench.ts`
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await run(optionsFromEnv(), replicaSetupFromEnv());
