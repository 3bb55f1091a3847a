/**
 * What one MCP tool call costs herald in steps, not time: the promises it makes, the SQLite
 * statements and commits it runs and the bytes it allocates, per turn of the tools benchmark's
 * agent whose model calls server-everything's `echo` N times a turn (stdio), against the same
 * agent's turn without calls; per call = (with N − without) / N. Counts do not scatter with a
 * busy machine as CPU time does. The counting (bench/async-steps-preload.mjs) slows herald: no
 * timing here. With BENCH_CPU_PROFILE=1 it instead runs herald under --cpu-prof, the N-call turns
 * only, and prints its top functions by self time.
 *
 * `node --import tsx bench/tool-call-steps.ts`. Env: BENCH_DURATION (counted load, 5 s),
 * BENCH_WARMUP (3 s), BENCH_TOOL_CONNECTIONS (10), BENCH_TOOL_CALLS (N, 4), BENCH_BEFORE=<checkout>
 * (its herald counted first, the same way), BENCH_PROMISE_SITES=1 (where the promises are made
 * and which statements run, per call), BENCH_TOP (sites and functions shown, 20).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNTING_ARGS, countingEnv, readCounts, type AsyncStepCounts } from './async-steps-counts.js';
import { startChildServer } from './child-server.js';
import { selfTimes } from './cpu-profile-top.js';
import { waitUntilIdle } from './process-stats.js';
import { loadTurns, startToolsHerald, type AgentKind } from './tool-calls-herald.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_DURATION ?? 5);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 3);
const connections = Number(process.env.BENCH_TOOL_CONNECTIONS ?? 10);
const calls = Number(process.env.BENCH_TOOL_CALLS ?? 4);
const sites = Boolean(process.env.BENCH_PROMISE_SITES);
const top = Number(process.env.BENCH_TOP ?? 20);
const before = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE, 'bin/herald.mjs') : undefined;

interface Counted extends AsyncStepCounts {
  turns: number;
}

const without: AgentKind = { server: 'stdio', calls: 0 };
const withCalls: AgentKind = { server: 'stdio', calls };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-tool-steps-'));
const model = await startChildServer({ name: 'model', args: ['--import', 'tsx', path.join(ROOT, 'bench/tool-calling-upstream.ts')], cwd: ROOT });

/** each agent's turns counted in one herald (this checkout's, or `bin`'s) */
async function countHerald(bin: string | undefined): Promise<Map<AgentKind, Counted>> {
  const out = path.join(dir, 'counted.json');
  const herald = await startToolsHerald({ agents: [without, withCalls], model: model.url, withStdio: true, bin, nodeArgs: COUNTING_ARGS, env: countingEnv(out, sites) });
  const counts = new Map<AgentKind, Counted>();
  try {
    for (const kind of [without, withCalls]) await loadTurns(herald, kind, connections, warmupSeconds);
    for (const kind of [without, withCalls]) {
      await waitUntilIdle(herald.pid);
      fs.rmSync(out, { force: true });
      process.kill(herald.pid, 'SIGUSR2');
      const { total, non2xx, errors } = await loadTurns(herald, kind, connections, seconds);
      if (non2xx || errors) throw new Error(`${non2xx} non-2xx answers and ${errors} errors from herald`);
      await waitUntilIdle(herald.pid);
      process.kill(herald.pid, 'SIGUSR2');
      counts.set(kind, { turns: total, ...(await readCounts(out, 'herald')) });
    }
  } finally {
    await herald.stop(10_000);
  }
  return counts;
}

function report(name: string, counts: Map<AgentKind, Counted>): void {
  const a = counts.get(without)!;
  const b = counts.get(withCalls)!;
  const perTurn = (c: Counted, key: 'promises' | 'statements' | 'commits' | 'allocated') => c[key] / c.turns;
  const perCall = (key: 'promises' | 'statements' | 'commits' | 'allocated') => (perTurn(b, key) - perTurn(a, key)) / calls;
  console.log(`\n${name}: ${a.turns} turns without calls, ${b.turns} with ${calls}`);
  console.log(`  per turn without calls: ${perTurn(a, 'promises').toFixed(1)} promises, ${perTurn(a, 'statements').toFixed(2)} statements, ${perTurn(a, 'commits').toFixed(2)} commits, ${(perTurn(a, 'allocated') / 1024).toFixed(1)} KB`);
  console.log(`  per turn with ${calls} calls:   ${perTurn(b, 'promises').toFixed(1)} promises, ${perTurn(b, 'statements').toFixed(2)} statements, ${perTurn(b, 'commits').toFixed(2)} commits, ${(perTurn(b, 'allocated') / 1024).toFixed(1)} KB`);
  console.log(`  per call:                ${perCall('promises').toFixed(1)} promises, ${perCall('statements').toFixed(2)} statements, ${perCall('commits').toFixed(3)} commits, ${(perCall('allocated') / 1024).toFixed(1)} KB`);
  console.log(`  allocated most, per turn with ${calls} calls:`);
  for (const [site, bytes] of b.top.slice(0, top)) console.log(`    ${(bytes / b.turns / 1024).toFixed(1).padStart(6)} KB  ${site}`);
  if (!sites) return;
  console.log(`  promises (1 in 16 sampled) and statements, per turn with ${calls} calls:`);
  for (const [site, n] of [...b.promiseTop.slice(0, 60), ...b.statementTop]) console.log(`    ${(n / b.turns).toFixed(2).padStart(6)}  ${site.replace(/\s+/g, ' ').slice(0, 170)}`);
}

/** herald under --cpu-prof, its N-call turns only, then its top functions by self time */
async function profile(): Promise<void> {
  const profileDir = path.join(dir, 'profile');
  const herald = await startToolsHerald({ agents: [withCalls], model: model.url, withStdio: true, cpuProfileDir: profileDir });
  try {
    await loadTurns(herald, withCalls, connections, warmupSeconds + seconds);
    await waitUntilIdle(herald.pid);
  } finally {
    await herald.stop(10_000);
  }
  const file = fs
    .readdirSync(profileDir)
    .map((f) => path.join(profileDir, f))
    .sort((x, y) => fs.statSync(y).size - fs.statSync(x).size)[0]!;
  const kept = path.join(os.tmpdir(), `herald-tool-calls-${Date.now()}.cpuprofile`);
  fs.copyFileSync(file, kept);
  console.log(`herald's top ${top} functions by self time, idle left out (${kept}):`);
  for (const { share, name } of selfTimes(kept, top)) console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
}

try {
  if (process.env.BENCH_CPU_PROFILE) await profile();
  else {
    if (before) report(`before (${before})`, await countHerald(before));
    report('herald', await countHerald(undefined));
  }
} finally {
  await model.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
