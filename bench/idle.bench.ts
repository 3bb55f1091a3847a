import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, startInScratchDir, type ChildServer } from './child-server.js';
import { compiledBaseline } from './compiled-baseline.js';
import { cpuMillis, mainThreadWakeups, residentBytes, threadCount } from './process-stats.js';
import { formatTable, mb } from './table.js';

/**
 * What a server costs while nothing happens: herald as `npm start` runs it (embedded defaults, no
 * config file, SQLite) against the webhook baseline (bench/baseline-server.ts, bundled as herald
 * is), each started in a fresh folder, left `BENCH_SETTLE` seconds (5) to settle, then watched for
 * `BENCH_IDLE_SECONDS` (20): its CPU (all threads, from /proc), how often its main thread woke
 * (voluntary context switches: each timer that fires is one), its threads and RSS. An idle
 * process that wakes a hundred times a second costs a laptop's battery and a shared host's CPU,
 * and each wakeup is paid again between the hops of a request that waits on another server.
 *
 *   node --import tsx bench/idle.bench.ts
 *
 * `BENCH_HERALD_ROOT=<checkout>[,<checkout>]` watches each checkout's herald (built) in turn;
 * `BENCH_ROUNDS` (3) rounds, the subjects' order rotated, medians printed.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const roots = (process.env.BENCH_HERALD_ROOT ?? ROOT).split(',').map((r) => path.resolve(r));
const settleSeconds = Number(process.env.BENCH_SETTLE ?? 5);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Watched {
  cpuMsPerMinute: number;
  wakeupsPerSecond: number;
  threads: number;
  rssBytes: number;
}

async function watch(server: ChildServer): Promise<Watched> {
  await sleep(settleSeconds * 1000);
  const cpu = cpuMillis(server.pid);
  const woke = mainThreadWakeups(server.pid);
  await sleep(idleSeconds * 1000);
  return {
    cpuMsPerMinute: ((cpuMillis(server.pid) - cpu) * 60) / idleSeconds,
    wakeupsPerSecond: (mainThreadWakeups(server.pid) - woke) / idleSeconds,
    threads: threadCount(server.pid),
    rssBytes: residentBytes(server.pid),
  };
}

const baselineScript = await compiledBaseline();
const subjects: { label: string; start: () => Promise<ChildServer> }[] = [
  {
    label: 'baseline (raw node:http, bundled)',
    start: () =>
      startInScratchDir('herald-idle-baseline-', (dir) =>
        startChildServer({ name: 'baseline', args: [baselineScript], cwd: ROOT, env: { BASELINE_DB: path.join(dir, 'baseline.db'), BASELINE_TOKEN: 'idle-bench-token-0123' } }),
      ),
  },
  ...roots.map((root) => ({
    label: roots.length > 1 ? `herald (${root})` : 'herald, embedded defaults',
    // as `npm start` runs it: `herald serve` in a folder with no config file
    start: () => startInScratchDir('herald-idle-', (dir) => startChildServer({ name: 'herald', args: [path.join(root, 'bin/herald.mjs'), 'serve'], cwd: dir, env: { HERALD_LOG_LEVEL: 'warn' } })),
  })),
];

console.log(`idle: each server left ${settleSeconds} s after its start, then watched for ${idleSeconds} s; ${rounds} rounds; node ${process.version}`);
const seen = subjects.map(() => [] as Watched[]);
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < subjects.length; i++) {
    const s = (i + round) % subjects.length;
    const server = await subjects[s]!.start();
    try {
      seen[s]!.push(await watch(server));
    } finally {
      await server.stop();
    }
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(
  formatTable(
    ['server', 'CPU ms per minute', 'wakeups per second', 'threads', 'RSS MB'],
    subjects.map((subject, s) => {
      const runs = seen[s]!;
      return [
        subject.label,
        median(runs.map((r) => r.cpuMsPerMinute)).toFixed(0),
        median(runs.map((r) => r.wakeupsPerSecond)).toFixed(1),
        median(runs.map((r) => r.threads)),
        mb(median(runs.map((r) => r.rssBytes))),
      ];
    }),
  ),
);
