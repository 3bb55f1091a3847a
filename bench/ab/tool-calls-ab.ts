/**
 * herald's CPU per MCP tool call, this checkout's against another's, on a machine too busy for
 * two separate runs to compare: both heralds run at once, and their loads alternate every
 * `BENCH_SLICE` seconds (the N-call agent and the agent without calls, each herald in turn), so
 * a change in the machine's load meets both alike. Per call, as bench/tool-calls.bench.ts
 * computes it: (CPU per turn with N calls − without) / N, summed over all slices. stdio only.
 *
 * `BENCH_BEFORE=<checkout> node --import tsx bench/ab/tool-calls-ab.ts`. Env: BENCH_SLICES (20),
 * BENCH_SLICE (1 s), BENCH_WARMUP (3 s), BENCH_TOOL_CONNECTIONS (10), BENCH_TOOL_CALLS (4).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer } from '../child-server.js';
import { alternatingSlices, perRequest, summed } from './ab-slices.js';
import { loadTurns, startToolsHerald, type AgentKind, type ToolsHerald } from '../tool-calls-herald.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
if (!process.env.BENCH_BEFORE) throw new Error('BENCH_BEFORE=<checkout> names the herald to compare against');
const before = path.resolve(process.env.BENCH_BEFORE, 'bin/herald.mjs');
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 1);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 3);
const connections = Number(process.env.BENCH_TOOL_CONNECTIONS ?? 10);
const calls = Number(process.env.BENCH_TOOL_CALLS ?? 4);

const without: AgentKind = { server: 'stdio', calls: 0 };
const withCalls: AgentKind = { server: 'stdio', calls };
const kinds: AgentKind[] = [without, withCalls];
const model = await startChildServer({ name: 'model', args: ['--import', 'tsx', path.join(ROOT, 'bench/tool-calling-upstream.ts')], cwd: ROOT });
const heralds: { name: string; pid: number; herald: ToolsHerald }[] = [];
try {
  for (const [name, bin] of [['before', before], ['now', undefined]] as const) {
    const herald = await startToolsHerald({ agents: [without, withCalls], model: model.url, withStdio: true, bin });
    heralds.push({ name, pid: herald.pid, herald });
  }
  for (const { herald } of heralds) for (const kind of kinds) await loadTurns(herald, kind, connections, warmupSeconds);
  const counts = await alternatingSlices(heralds, kinds, slices, (h, kind) => loadTurns(h.herald, kind, connections, slice));
  for (const h of heralds) {
    const perTurn = (kind: AgentKind) => perRequest(counts.get(h)!.get(kind)!);
    const turns = (kind: AgentKind) => summed(counts.get(h)!.get(kind)!).requests;
    console.log(
      `${h.name}: CPU ms per turn without calls ${perTurn(without).toFixed(3)} (${turns(without)} turns), with ${calls} calls ${perTurn(withCalls).toFixed(3)} (${turns(withCalls)} turns); per call ${((perTurn(withCalls) - perTurn(without)) / calls).toFixed(3)} ms`,
    );
  }
} finally {
  for (const { herald } of heralds) await herald.stop(10_000);
  await model.stop();
}
