/**
 * herald's CPU per MCP tool call, this checkout's against another's, on a machine too busy for
 * two separate runs to compare: both heralds run at once, and their loads alternate every
 * `BENCH_SLICE` seconds (the N-call agent and the agent without calls, each herald in turn), so
 * a change in the machine's load meets both alike. Per call, as bench/tool-calls.bench.ts
 * computes it: (CPU per turn with N calls − without) / N, summed over all slices. stdio only.
 *
 * `BENCH_BEFORE=<checkout> node --import tsx bench/tool-calls-ab.ts`. Env: BENCH_SLICES (20),
 * BENCH_SLICE (1 s), BENCH_WARMUP (3 s), BENCH_TOOL_CONNECTIONS (10), BENCH_TOOL_CALLS (4).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer } from './child-server.js';
import { cpuMillis, waitUntilIdle } from './process-stats.js';
import { loadTurns, startToolsHerald, type AgentKind, type ToolsHerald } from './tool-calls-herald.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!process.env.BENCH_BEFORE) throw new Error('BENCH_BEFORE=<checkout> names the herald to compare against');
const before = path.resolve(process.env.BENCH_BEFORE, 'bin/herald.mjs');
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 1);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 3);
const connections = Number(process.env.BENCH_TOOL_CONNECTIONS ?? 10);
const calls = Number(process.env.BENCH_TOOL_CALLS ?? 4);

const without: AgentKind = { server: 'stdio', calls: 0 };
const withCalls: AgentKind = { server: 'stdio', calls };
const model = await startChildServer({ name: 'model', args: ['--import', 'tsx', path.join(ROOT, 'bench/tool-calling-upstream.ts')], cwd: ROOT });
const heralds: { name: string; herald: ToolsHerald; cpu: Map<AgentKind, number>; turns: Map<AgentKind, number> }[] = [];
try {
  for (const [name, bin] of [['before', before], ['now', undefined]] as const) {
    const herald = await startToolsHerald({ agents: [without, withCalls], model: model.url, withStdio: true, bin });
    heralds.push({ name, herald, cpu: new Map(), turns: new Map() });
  }
  for (const { herald } of heralds) for (const kind of [without, withCalls]) await loadTurns(herald, kind, connections, warmupSeconds);
  for (let i = 0; i < slices; i++) {
    // each slice starts with the other herald: neither always meets the machine as the other left it
    for (const h of i % 2 ? [...heralds].reverse() : heralds) {
      for (const kind of [without, withCalls]) {
        await waitUntilIdle(h.herald.pid, { windowMs: 200 });
        const cpu = cpuMillis(h.herald.pid);
        const { total, non2xx, errors } = await loadTurns(h.herald, kind, connections, slice);
        if (non2xx || errors) throw new Error(`${h.name}: ${non2xx} non-2xx answers and ${errors} errors`);
        await waitUntilIdle(h.herald.pid, { windowMs: 200 });
        h.cpu.set(kind, (h.cpu.get(kind) ?? 0) + cpuMillis(h.herald.pid) - cpu);
        h.turns.set(kind, (h.turns.get(kind) ?? 0) + total);
      }
    }
  }
  for (const h of heralds) {
    const perTurn = (kind: AgentKind) => h.cpu.get(kind)! / h.turns.get(kind)!;
    console.log(
      `${h.name}: CPU ms per turn without calls ${perTurn(without).toFixed(3)} (${h.turns.get(without)} turns), with ${calls} calls ${perTurn(withCalls).toFixed(3)} (${h.turns.get(withCalls)} turns); per call ${((perTurn(withCalls) - perTurn(without)) / calls).toFixed(3)} ms`,
    );
  }
} finally {
  for (const { herald } of heralds) await herald.stop(10_000);
  await model.stop();
}
