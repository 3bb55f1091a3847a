/**
 * herald beside a gateway users pick instead, measured side by side in one run on this machine:
 * the same fake upstream (bench/chat-upstream.ts, answering at once) called directly, through a
 * bare Node pass-through proxy (bench/chat-proxy.ts), through that proxy keeping the records herald
 * keeps of a completion before it answers (bench/chat-recording-proxy.ts), through herald (built, a fresh SQLite store,
 * no budget, no tools, tracing off) and through Portkey's open-source gateway
 * (`@portkey-ai/gateway`, its OpenAI provider pointed at the upstream by `x-portkey-custom-host`).
 *
 * Portkey is installed by this harness into `bench/peers/.install/` (ignored by git, never
 * committed) with npm, beside `@hono/node-server` 1.14.1: later 1.x versions buffer its streamed
 * answers (Portkey-AI/gateway#1389). LiteLLM (Python) and Bifrost (Go) cannot be installed here
 * (no PyPI, no Go binaries): their published figures are printed under the table, with sources.
 *
 * Per server, each figure from the same run, the servers taking turns (`BENCH_ROUNDS` rounds, the
 * order rotated, medians printed):
 * - added p50 / p99, sequential: one completion at a time over a kept-alive connection (a probe
 *   process, bench/first-token-probe.ts, timing each until its answer's content arrived), minus the
 *   upstream's own;
 * - CPU per completion (the server's process, /proc) sequential and at `BENCH_CHAT_CONNECTIONS`
 *   (10), and completions/s at 10;
 * - first streamed token added (p50), as the platform benchmark takes it;
 * - bytes the server wrote to storage per completion (/proc's write_bytes).
 *
 * `node --import tsx bench/peers/peers.bench.ts` (build herald first: `node bin/build.mjs`).
 * Options: `BENCH_ROUNDS` (3), `BENCH_DURATION` (5 s), `BENCH_WARMUP` (2 s), `BENCH_PREWARM` (10 s once
 * per server before the first round, bench/chat-prewarm.ts), `BENCH_CHAT_CONNECTIONS`
 * (10), `BENCH_PROBES` (completions timed one at a time per server and round, 400),
 * `BENCH_PEERS=portkey` (or `none`: herald and the floors only).
 */
import { execFileSync } from 'node:child_process';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prewarmChat, prewarmSeconds } from '../chat-prewarm.js';
import { startChildServer, type ChildServer } from '../child-server.js';
import { runLoad } from '../load.js';
import { startRecordingProxy } from '../start-recording-proxy.js';
import { API_KEY, startHerald } from '../platform.bench.js';
import { cpuMillis, storageBytes, waitUntilIdle } from '../process-stats.js';
import { formatTable, percentile } from '../table.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const INSTALL = path.join(HERE, '.install');
const PORTKEY_VERSION = '1.15.2';
const HONO_NODE_SERVER_VERSION = '1.14.1';

const env = process.env;
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const seconds = Number(env.BENCH_DURATION ?? 5);
const warmup = Number(env.BENCH_WARMUP ?? 2);
const connections = Number(env.BENCH_CHAT_CONNECTIONS ?? 10);
const probes = Number(env.BENCH_PROBES ?? 400);
const peers = (env.BENCH_PEERS ?? 'portkey').split(',').filter((p) => p && p !== 'none');

interface Target {
  name: string;
  server: ChildServer;
  headers: Record<string, string>;
  /** the `model` this server is asked for */
  model: string;
}

const body = (model: string, stream: boolean) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'How are you today?' }], ...(stream && { stream: true, stream_options: { include_usage: true } }) });

/** Portkey and the node server it streams through, installed into the ignored folder once */
function installPortkey(): string {
  const entry = path.join(INSTALL, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  const manifest = path.join(INSTALL, 'package.json');
  const wanted = { '@portkey-ai/gateway': PORTKEY_VERSION, '@hono/node-server': HONO_NODE_SERVER_VERSION };
  const installed = fs.existsSync(entry) && fs.existsSync(manifest) && JSON.stringify(JSON.parse(fs.readFileSync(manifest, 'utf8')).dependencies) === JSON.stringify(wanted);
  if (!installed) {
    fs.mkdirSync(INSTALL, { recursive: true });
    // `overrides` pins the node server Portkey itself depends on (its ^1.3.3 would take the latest 1.x)
    fs.writeFileSync(manifest, JSON.stringify({ name: 'herald-bench-peers', private: true, dependencies: wanted, overrides: { '@hono/node-server': HONO_NODE_SERVER_VERSION } }, null, 2));
    console.log(`installing @portkey-ai/gateway@${PORTKEY_VERSION} with @hono/node-server@${HONO_NODE_SERVER_VERSION} into ${path.relative(ROOT, INSTALL)} ...`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--omit=dev', '--ignore-scripts'], { cwd: INSTALL, stdio: 'inherit' });
  }
  return entry;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

async function startPortkey(upstream: ChildServer): Promise<Target> {
  const entry = installPortkey();
  const port = await freePort();
  const server = await startChildServer({ name: 'portkey', args: [entry, `--port=${port}`], cwd: INSTALL, listening: /(Ready) for connections/ });
  return {
    name: `Portkey gateway ${PORTKEY_VERSION}`,
    server: { ...server, url: `http://127.0.0.1:${port}` },
    // its OpenAI provider, sent to the fake upstream (https://portkey.ai/docs/api-reference/inference-api/headers)
    headers: { authorization: `Bearer ${API_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream.url}/v1` },
    model: 'bench',
  };
}

/** herald as the platform benchmark starts it: built, a fresh SQLite store, no budget, no tools, tracing off */
async function startHeraldTarget(upstream: ChildServer): Promise<Target> {
  return { name: 'herald', server: await startHerald(ROOT, 'herald', upstream, []), headers: { authorization: `Bearer ${API_KEY}` }, model: 'agent' };
}

/** times (ms) of `count` completions one at a time, until each one's answer text arrived (plain: the whole answer) */
function probe(target: Target, stream: boolean, count: number): Promise<number[]> {
  const args = JSON.stringify({ url: `${target.server.url}/v1/chat/completions`, headers: target.headers, body: body(target.model, stream), count });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/first-token-probe.ts'), args], { maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`probe of ${target.name} failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as number[]);
    });
  });
}

async function load(target: Target, conns: number) {
  const run = (durationSeconds: number) =>
    runLoad({ url: target.server.url, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', ...target.headers }, body: body(target.model, false), connections: conns, durationSeconds });
  if (warmup > 0) await run(warmup);
  await waitUntilIdle(target.server.pid);
  const cpu = cpuMillis(target.server.pid);
  const bytes = storageBytes(target.server.pid);
  const result = await run(seconds);
  await waitUntilIdle(target.server.pid);
  if (result.non2xx || result.errors) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return { rps: result.requestsPerSecond, cpuMs: (cpuMillis(target.server.pid) - cpu) / result.total, bytes: (storageBytes(target.server.pid) - bytes) / result.total };
}

interface Figures {
  p50: number;
  p99: number;
  firstToken: number;
  cpuSequential: number;
  cpuConcurrent: number;
  rps: number;
  bytes: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const at = (sorted: number[], p: number) => percentile(sorted, p);

async function main() {
  console.log(`peers: POST /v1/chat/completions, ${rounds} rounds; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), load average ${os.loadavg()[0]!.toFixed(1)}, Node.js ${process.version}`);
  const upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-upstream.ts')], cwd: ROOT });
  const targets: Target[] = [{ name: 'the upstream alone', server: upstream, headers: {}, model: 'bench' }];
  try {
    targets.push({
      name: 'a bare Node proxy',
      server: await startChildServer({ name: 'proxy', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-proxy.ts'), upstream.url, API_KEY], cwd: ROOT }),
      headers: { authorization: `Bearer ${API_KEY}` },
      model: 'bench',
    });
    targets.push({ name: "the bare proxy keeping herald's records", server: await startRecordingProxy(upstream, API_KEY), headers: { authorization: `Bearer ${API_KEY}` }, model: 'bench' });
    targets.push(await startHeraldTarget(upstream));
    if (peers.includes('portkey')) targets.push(await startPortkey(upstream));
    for (const t of targets) await prewarmChat(t.server, t.headers, { plain: body(t.model, false), streamed: body(t.model, true) }, connections, prewarmSeconds());
    const figures = new Map<string, Figures[]>(targets.map((t) => [t.name, []]));
    for (let round = 0; round < rounds; round++) {
      // rotated: no server always meets the machine as the one before it left it
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
      const seq = new Map<string, number[]>();
      const first = new Map<string, number[]>();
      // the one-at-a-time timings in slices, the servers in turn, so each meets the same minutes
      for (let slice = 0; slice < 4; slice++) {
        for (const t of slice % 2 ? [...order].reverse() : order) {
          seq.set(t.name, [...(seq.get(t.name) ?? []), ...(await probe(t, false, Math.ceil(probes / 4)))]);
          first.set(t.name, [...(first.get(t.name) ?? []), ...(await probe(t, true, Math.ceil(probes / 4)))]);
        }
      }
      for (const t of order) {
        const sequential = await load(t, 1);
        const concurrent = await load(t, connections);
        const times = seq.get(t.name)!.sort((a, b) => a - b);
        const firsts = first.get(t.name)!.sort((a, b) => a - b);
        figures.get(t.name)!.push({
          p50: at(times, 0.5),
          p99: at(times, 0.99),
          firstToken: at(firsts, 0.5),
          cpuSequential: sequential.cpuMs,
          cpuConcurrent: concurrent.cpuMs,
          rps: concurrent.rps,
          bytes: sequential.bytes,
        });
      }
      console.log(`round ${round + 1} of ${rounds} done`);
    }
    const of = (name: string, key: keyof Figures) => median(figures.get(name)!.map((f) => f[key]));
    const direct = targets[0]!.name;
    const proxyCpu = of('a bare Node proxy', 'cpuSequential');
    const rows = targets.map((t) => {
      const isUpstream = t.name === direct;
      const added = (key: 'p50' | 'p99' | 'firstToken') => (isUpstream ? `${of(t.name, key).toFixed(3)} (itself)` : `+${(of(t.name, key) - of(direct, key)).toFixed(3)}`);
      return [
        t.name,
        added('p50'),
        added('p99'),
        `${of(t.name, 'cpuSequential').toFixed(3)}${isUpstream ? '' : ` (${(of(t.name, 'cpuSequential') / proxyCpu).toFixed(1)}×)`}`,
        of(t.name, 'cpuConcurrent').toFixed(3),
        Math.round(of(t.name, 'rps')),
        added('firstToken'),
        Math.round(of(t.name, 'bytes')),
      ];
    });
    console.log(
      formatTable(
        ['server', 'added p50 ms, sequential', 'added p99 ms, sequential', 'CPU ms/completion, sequential (× the bare proxy)', `CPU ms/completion, ${connections} connections`, `completions/s, ${connections} connections`, 'first token added, p50 ms', 'bytes written/completion'],
        rows,
      ),
    );
    const recordsCpu = of("the bare proxy keeping herald's records", 'cpuSequential');
    console.log(`herald's CPU per completion, sequential: ${(of('herald', 'cpuSequential') / recordsCpu).toFixed(2)}× the bare proxy keeping its records (which is itself ${(recordsCpu / proxyCpu).toFixed(2)}× the bare proxy)`);
    console.log(
      'Published figures (not measured here; other machines and methods):\n' +
        '- LiteLLM 1.91.1 +4.34 ms, Portkey 1.15.2 +2.37 ms, Bifrost +0.44 ms added p50, sequential on localhost against a mock upstream, GitHub Actions runner, 2026-07-09 ' +
        '(cuihuan/llm-gateway-bench, data/overhead.json at 1fc59b3);\n' +
        "- LiteLLM's own: a median 'LiteLLM Overhead Duration' of 12 ms at 1,036 req/s, two instances of 4 CPUs (https://docs.litellm.ai/docs/benchmarks).",
    );
  } finally {
    for (const t of targets.slice(1).reverse()) await t.server.stop().catch(() => undefined);
    await upstream.stop();
  }
}

await main();
