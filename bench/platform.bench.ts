/**
 * Platform API benchmark: what herald adds on top of the model it fronts (plain and streamed chat
 * completions: throughput, latency, herald's CPU per completion, the first streamed token; beside
 * it a bare proxy making the same two hops and nothing else, bench/chat-proxy.ts, so the part of
 * the first token any gateway pays on this machine is told from herald's own), and
 * how fast the knowledge index ingests and searches a generated corpus of 100,000 chunks
 * (`BENCH_KB_DOCUMENTS` × `BENCH_KB_CHUNKS_PER_DOCUMENT`, 100 × 1,000; `BENCH_KB_QUERIES`, 500 per kind).
 * Standalone: `node --import tsx bench/platform.bench.ts` (`BENCH_CHAT_ONLY=1` skips the
 * knowledge part, `BENCH_CPU_PROFILE=<dir>` profiles herald, `BENCH_BASELINE_ROOT=<checkout>`
 * measures that checkout's herald too, in the same run, `BENCH_TOGETHER=1` loads both at the same
 * time, `BENCH_ROUNDS=<n>` repeats the chat measurements and prints medians, `BENCH_PREWARM=<s>`
 * loads each server once before its first row, bench/chat-prewarm.ts); `bench/run.ts` calls `run()`.
 * Figures are printed, never asserted: they depend on the machine.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuProfileArgs, startChildServer, startInScratchDir, type ChildServer } from './child-server.js';
import { prewarmChat, prewarmSeconds } from './chat-prewarm.js';
import { knowledgeSpeed, printKnowledgeSpeed, type SearchFigures } from './knowledge-search.bench.js';
import { runLoad } from './load.js';
import { writeBenchConfig } from './bench-herald-config.js';
import { startRecordingProxy } from './start-recording-proxy.js';
import { cpuMillis, storageBytes, waitUntilIdle } from './process-stats.js';
import { formatTable, ms, percentile } from './table.js';

export const API_KEY = 'sk-bench-0123456789abcdef';
const NO_SEARCH: SearchFigures = { queries: 0, p50Ms: 0, p95Ms: 0, meanMs: 0, cpuP50Ms: 0, cpuP95Ms: 0 };
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface PlatformBenchResult {
  chat: ChatRow[];
  firstToken: FirstToken;
  ingest: { chunks: number; seconds: number; chunksPerSecond: number };
  search: SearchFigures;
  frequentSearch: SearchFigures;
}

interface ChatRow {
  /** plain and streamed at `connections`; `plain, sequential` one connection, one completion at a time */
  kind: 'plain' | 'streamed' | 'plain, sequential' | 'streamed, sequential' | 'plain, sequential, store: false' | 'plain, store: false';
  server: 'upstream direct' | 'bare proxy' | 'recording proxy' | 'herald' | 'baseline herald';
  completionsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** the server's CPU (user + system, /proc) from the start of the load until idle, per completion */
  cpuMsPerCompletion: number;
  /** what the server had written to storage (/proc's write_bytes: WAL frames, checkpointed pages) per completion */
  bytesPerCompletion: number;
}

interface FirstToken {
  samples: number;
  direct: { p50Ms: number; p99Ms: number };
  /** through bench/chat-proxy.ts: the two hops herald makes, and nothing else */
  proxy: { p50Ms: number; p99Ms: number };
  /** through bench/chat-recording-proxy.ts: the bare proxy that also commits herald's records of a completion before its end */
  recordingProxy: { p50Ms: number; p99Ms: number };
  herald: { p50Ms: number; p99Ms: number };
  /** the same through BENCH_BASELINE_ROOT's herald */
  baseline?: { p50Ms: number; p99Ms: number };
}

export interface ChatBenchOptions {
  seconds?: number;
  warmupSeconds?: number;
  connections?: number;
  /** streamed completions timed one by one for the first token, against each server */
  firstTokenSamples?: number;
  /** a folder: herald runs under `--cpu-prof` and writes its profile there */
  cpuProfileDir?: string;
  /**
   * another checkout of herald (e.g. main) measured beside this one in the same run, so a change
   * is compared on the same machine under the same load ("before" and "after" alternate)
   */
  baselineRoot?: string;
  /** the measurements are repeated this many times; the table shows each figure's median */
  rounds?: number;
  /** each server's one load before its first row (bench/chat-prewarm.ts) */
  prewarmSeconds?: number;
  /**
   * herald and the baseline herald are loaded at the same time (each with `connections`), so both
   * meet the same machine: on a machine shared with other work, one measured after the other
   * differs by more than a change does
   */
  together?: boolean;
}

type ChatSettings = Required<Omit<ChatBenchOptions, 'cpuProfileDir' | 'baselineRoot' | 'together'>>;

/** a one-question chat; `store: false` asks the server to keep only the usage record (herald and the recording proxy honour it) */
export const chatBody = (stream: boolean, store = true) =>
  JSON.stringify({
    model: 'agent',
    messages: [{ role: 'user', content: 'How are you today?' }],
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
    ...(!store && { store: false }),
  });

async function measureChat(server: { url: string; pid: number }, body: string, headers: Record<string, string>, options: ChatSettings, connections = options.connections) {
  const load = (durationSeconds: number) =>
    runLoad({ url: server.url, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', ...headers }, body, connections, durationSeconds });
  if (options.warmupSeconds > 0) {
    await load(options.warmupSeconds);
    await waitUntilIdle(server.pid);
  }
  const cpuBefore = cpuMillis(server.pid);
  const bytesBefore = storageBytes(server.pid);
  const result = await load(options.seconds);
  await waitUntilIdle(server.pid);
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors from ${server.url}`);
  return {
    completionsPerSecond: Math.round(result.requestsPerSecond),
    p50Ms: result.latencyP50Ms,
    p99Ms: result.latencyP99Ms,
    cpuMsPerCompletion: (cpuMillis(server.pid) - cpuBefore) / Math.max(1, result.total),
    bytesPerCompletion: (storageBytes(server.pid) - bytesBefore) / Math.max(1, result.total),
  };
}

/** first-token times (ms) of `count` streamed completions, one at a time, from a separate process */
function probeFirstToken(url: string, headers: Record<string, string>, count: number): Promise<number[]> {
  const args = JSON.stringify({ url: `${url}/v1/chat/completions`, headers, body: chatBody(true), count });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/first-token-probe.ts'), args], { maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`first-token probe failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as number[]);
    });
  });
}

/**
 * Chat completions straight to an OpenAI-compatible upstream and through herald, plain and
 * streamed. The upstream, herald and the load generator are three processes, so each one's CPU
 * (from /proc) is its own; herald's CPU per completion is the figure that moves least on a
 * shared machine. The first-token probe (one request at a time) gives what herald adds to the
 * first streamed token.
 */
export async function chatBench(options: ChatBenchOptions = {}): Promise<Pick<PlatformBenchResult, 'chat' | 'firstToken'>> {
  const settings: ChatSettings = {
    seconds: options.seconds ?? 5,
    warmupSeconds: options.warmupSeconds ?? 2,
    connections: options.connections ?? 10,
    firstTokenSamples: options.firstTokenSamples ?? 2000,
    rounds: options.rounds ?? 1,
    prewarmSeconds: options.prewarmSeconds ?? prewarmSeconds(),
  };
  const upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-upstream.ts')], cwd: ROOT });
  try {
    return await chatThrough(upstream, options, settings);
  } finally {
    // also when herald does not start: no upstream process is left behind
    await upstream.stop();
  }
}

/**
 * The rows, as [streamed, sequential, store]. A `store: false` completion keeps only its usage
 * record: measured on the servers that keep records (the upstream and the bare proxy would do
 * what they do for the row above it)
 */
const CHAT_CASES = [
  [false, true, true],
  [true, true, true],
  [false, false, true],
  [true, false, true],
  [false, true, false],
  [false, false, false],
] as const;
const KEEPERS = new Set<ChatRow['server']>(['recording proxy', 'herald', 'baseline herald']);

/** a herald of the checkout at `root` in its own process, on a fresh store, fronting `upstream` */
export function startHerald(root: string, name: string, upstream: ChildServer, profile: string[], env: Record<string, string> = {}): Promise<ChildServer> {
  return startInScratchDir('herald-bench-', (dir) => {
    const configFile = writeBenchConfig(dir, API_KEY, {
      models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1` } } },
      agent: { model: 'up/bench', instructions: 'Be brief.' },
      rateLimit: { requestsPerMinute: 1_000_000_000 },
    });
    // the same log level as the webhook benchmark: this measures the chat path, not the access log
    return startChildServer({ name, args: [...profile, path.join(root, 'bin/herald.mjs'), 'serve', '--config', configFile], cwd: root, env: { HERALD_LOG_LEVEL: 'warn', ...env } });
  });
}

/** each server's first-token probe in this many slices, taken in turn with the others' */
const FIRST_TOKEN_SLICES = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

async function chatThrough(upstream: ChildServer, options: ChatBenchOptions, settings: ChatSettings): Promise<Pick<PlatformBenchResult, 'chat' | 'firstToken'>> {
  const profile = cpuProfileArgs(options.cpuProfileDir);
  const servers: { name: ChatRow['server']; server: ChildServer; headers: Record<string, string> }[] = [{ name: 'upstream direct', server: upstream, headers: {} }];
  const auth = { authorization: `Bearer ${API_KEY}` };
  try {
    servers.push({ name: 'bare proxy', server: await startChildServer({ name: 'proxy', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-proxy.ts'), upstream.url, API_KEY], cwd: ROOT }), headers: auth });
    servers.push({ name: 'recording proxy', server: await startRecordingProxy(upstream, API_KEY), headers: auth });
    if (options.baselineRoot) servers.push({ name: 'baseline herald', server: await startHerald(path.resolve(options.baselineRoot), 'baseline', upstream, []), headers: auth });
    servers.push({ name: 'herald', server: await startHerald(ROOT, 'herald', upstream, profile), headers: auth });
    for (const { server, headers } of servers) await prewarmChat(server, headers, { plain: chatBody(false), streamed: chatBody(true) }, settings.connections, settings.prewarmSeconds);
    const rows = new Map<string, { kind: ChatRow['kind']; server: ChatRow['server']; runs: Awaited<ReturnType<typeof measureChat>>[] }>();
    const probes = new Map<string, { p50Ms: number; p99Ms: number }[]>();
    for (let round = 0; round < settings.rounds; round++) {
      for (const [stream, sequential, store] of CHAT_CASES) {
        const kind = `${stream ? 'streamed' : 'plain'}${sequential ? ', sequential' : ''}${store ? '' : ', store: false'}` as ChatRow['kind'];
        // herald and the baseline take turns going first: neither always meets the machine as the other left it
        const order = (round % 2 ? [servers[0]!, ...servers.slice(1).reverse()] : servers).filter(({ name }) => store || KEEPERS.has(name));
        const measure = async ({ name, server, headers }: (typeof servers)[number]) => {
          const run = await measureChat(server, chatBody(stream, store), headers, settings, sequential ? 1 : settings.connections);
          const row = rows.get(`${kind} ${name}`) ?? { kind, server: name, runs: [] };
          row.runs.push(run);
          rows.set(`${kind} ${name}`, row);
        };
        if (options.together) {
          await measure(order[0]!);
          await Promise.all(order.slice(1).map(measure));
        } else for (const server of order) await measure(server);
      }
      // the servers take turns in slices, the order reversed each slice: one-at-a-time timings move
      // with the machine from minute to minute, and a server probed whole after another meets another machine
      const times = new Map(servers.map(({ name }) => [name, [] as number[]]));
      const per = Math.ceil(settings.firstTokenSamples / FIRST_TOKEN_SLICES);
      for (let slice = 0; slice < FIRST_TOKEN_SLICES; slice++) {
        for (const { name, server, headers } of slice % 2 ? [...servers].reverse() : servers) times.get(name)!.push(...(await probeFirstToken(server.url, headers, per)));
      }
      for (const [name, list] of times) {
        const sorted = list.sort((a, b) => a - b);
        const at = (p: number) => Math.round(percentile(sorted, p) * 1000) / 1000;
        probes.set(name, [...(probes.get(name) ?? []), { p50Ms: at(0.5), p99Ms: at(0.99) }]);
      }
    }
    for (const kind of ['plain, sequential', 'streamed, sequential', 'plain', 'streamed', 'plain, sequential, store: false', 'plain, store: false'] as const) {
      const before = rows.get(`${kind} baseline herald`)?.runs;
      const after = rows.get(`${kind} herald`)!.runs;
      // each round's ratio: the two of a round met the same machine (with BENCH_TOGETHER, at the same time)
      if (before) console.log(`${kind}: herald's CPU per completion of the baseline's, per round: ${after.map((r, i) => (r.cpuMsPerCompletion / before[i]!.cpuMsPerCompletion).toFixed(2)).join(', ')}`);
    }
    const chat: ChatRow[] = [...rows.values()].map(({ kind, server, runs }) => ({
      kind,
      server,
      completionsPerSecond: median(runs.map((r) => r.completionsPerSecond)),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      cpuMsPerCompletion: median(runs.map((r) => r.cpuMsPerCompletion)),
      bytesPerCompletion: median(runs.map((r) => r.bytesPerCompletion)),
    }));
    const probeOf = (name: string) => {
      const list = probes.get(name);
      return list && { p50Ms: median(list.map((p) => p.p50Ms)), p99Ms: median(list.map((p) => p.p99Ms)) };
    };
    return { chat, firstToken: { samples: settings.firstTokenSamples, direct: probeOf('upstream direct')!, proxy: probeOf('bare proxy')!, recordingProxy: probeOf('recording proxy')!, herald: probeOf('herald')!, ...(options.baselineRoot && { baseline: probeOf('baseline herald') }) } };
  } finally {
    for (const { server } of servers.slice(1)) await server.stop();
  }
}

export function renderChatTable({ chat, firstToken }: Pick<PlatformBenchResult, 'chat' | 'firstToken'>): string {
  const table = formatTable(
    ['completion', 'server', 'completions/s', 'p50 ms', 'p99 ms', 'server CPU ms/completion', 'bytes written/completion'],
    chat.map((r) => [r.kind, r.server, r.completionsPerSecond, ms(r.p50Ms), ms(r.p99Ms), r.cpuMsPerCompletion.toFixed(3), Math.round(r.bytesPerCompletion)]),
  );
  const added = firstToken.herald.p50Ms - firstToken.direct.p50Ms;
  return (
    `${table}\n` +
    `first streamed token (${firstToken.samples} completions one at a time, in ${FIRST_TOKEN_SLICES} slices the servers take in turn): upstream direct p50 ${firstToken.direct.p50Ms} ms, p99 ${firstToken.direct.p99Ms} ms; ` +
    `through herald p50 ${firstToken.herald.p50Ms} ms, p99 ${firstToken.herald.p99Ms} ms; herald adds ${added.toFixed(3)} ms (p50)\n` +
    `through a bare proxy (bench/chat-proxy.ts: the same two hops, nothing else) p50 ${firstToken.proxy.p50Ms} ms, p99 ${firstToken.proxy.p99Ms} ms; ` +
    `it adds ${(firstToken.proxy.p50Ms - firstToken.direct.p50Ms).toFixed(3)} ms, herald ${(firstToken.herald.p50Ms - firstToken.proxy.p50Ms).toFixed(3)} ms beyond it (p50)\n` +
    `through the recording proxy (bench/chat-recording-proxy.ts: the bare proxy keeping herald's records) p50 ${firstToken.recordingProxy.p50Ms} ms, p99 ${firstToken.recordingProxy.p99Ms} ms; ` +
    `it adds ${(firstToken.recordingProxy.p50Ms - firstToken.direct.p50Ms).toFixed(3)} ms (p50)` +
    (firstToken.baseline
      ? `\nthrough the baseline herald p50 ${firstToken.baseline.p50Ms} ms, p99 ${firstToken.baseline.p99Ms} ms; it adds ${(firstToken.baseline.p50Ms - firstToken.direct.p50Ms).toFixed(3)} ms (p50)`
      : '')
  );
}

/** a deterministic pseudo-random generator, so every run indexes the same corpus */
export async function run(options: { seconds?: number; documents?: number; chunksPerDocument?: number; queries?: number } & ChatBenchOptions = {}): Promise<PlatformBenchResult> {
  const env = process.env;
  const chatOptions: ChatBenchOptions = {
    seconds: options.seconds ?? (env.BENCH_DURATION ? Number(env.BENCH_DURATION) : undefined),
    warmupSeconds: options.warmupSeconds ?? (env.BENCH_WARMUP ? Number(env.BENCH_WARMUP) : undefined),
    connections: options.connections ?? (env.BENCH_CHAT_CONNECTIONS ? Number(env.BENCH_CHAT_CONNECTIONS) : undefined),
    firstTokenSamples: options.firstTokenSamples ?? (env.BENCH_FIRST_TOKEN_SAMPLES ? Number(env.BENCH_FIRST_TOKEN_SAMPLES) : undefined),
    cpuProfileDir: options.cpuProfileDir ?? (env.BENCH_CPU_PROFILE || undefined),
    baselineRoot: options.baselineRoot ?? (env.BENCH_BASELINE_ROOT || undefined),
    rounds: options.rounds ?? (env.BENCH_ROUNDS ? Number(env.BENCH_ROUNDS) : undefined),
    together: options.together ?? env.BENCH_TOGETHER === '1',
  };
  console.log(`platform: POST /v1/chat/completions, ${chatOptions.connections ?? 10} connections; upstream (answering at once), herald and load generator in separate processes (load average ${os.loadavg()[0]!.toFixed(1)})`);
  const chat = await chatBench(chatOptions);
  console.log(renderChatTable(chat));
  if (env.BENCH_CHAT_ONLY) return { ...chat, ingest: { chunks: 0, seconds: 0, chunksPerSecond: 0 }, search: NO_SEARCH, frequentSearch: NO_SEARCH };
  // 100 documents of 1,000 chunks: the 100,000 chunks of issue 15's target
  const kb = await knowledgeSpeed(
    options.documents ?? (env.BENCH_KB_DOCUMENTS ? Number(env.BENCH_KB_DOCUMENTS) : 100),
    options.chunksPerDocument ?? (env.BENCH_KB_CHUNKS_PER_DOCUMENT ? Number(env.BENCH_KB_CHUNKS_PER_DOCUMENT) : 1000),
    options.queries ?? (env.BENCH_KB_QUERIES ? Number(env.BENCH_KB_QUERIES) : 500),
  );
  printKnowledgeSpeed(kb);
  return { ...chat, ...kb };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
