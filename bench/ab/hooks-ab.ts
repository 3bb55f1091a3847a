/**
 * herald's CPU per webhook request, this checkout's against another's, resolved finer than
 * hooks.bench.ts's rounds can: there a measurement is one server alone for 10 s, and the machine's
 * drift between two of them (several per cent on a 2-vCPU VM) hides a change of one or two. Here
 * both heralds run at once and their loads alternate every `BENCH_SLICE` seconds, each slice's CPU
 * counted until its server is idle again (the runs it accepted executed), so a change in the
 * machine meets both alike. It prints each herald's CPU per request summed over all slices, and
 * the ratio of every pair of slices, whose spread says how far the total can be trusted.
 *
 * `BENCH_BEFORE=<checkout> node --import tsx bench/ab/hooks-ab.ts` (build both first). Env:
 * BENCH_ENDPOINT (agent-executed; one of hooks.bench.ts's endpoint names), BENCH_SLICES (20),
 * BENCH_SLICE (2 s), BENCH_WARMUP (3 s, each herald before the first slice), BENCH_CONNECTIONS (50),
 * BENCH_LOG_LEVEL (warn).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { endpointNamed, loadHook, optionsFromEnv, startServers } from '../hooks.bench.js';
import { alternatingSlices, cpuRatio, perRequest, summed } from './ab-slices.js';
import { waitUntilIdle } from '../process-stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
if (!process.env.BENCH_BEFORE) throw new Error('BENCH_BEFORE=<checkout> names the herald to compare against');
const before = path.resolve(process.env.BENCH_BEFORE);
const name = process.env.BENCH_ENDPOINT || 'agent-executed';
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 2);
const endpoint = endpointNamed(name);
const options = { ...optionsFromEnv(), heraldRoots: [before, ROOT], baselineSchemas: [], endpoints: [name], tracing: ['off' as const] };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-hooks-ab-'));
const { heralds, echo } = await startServers(dir, options);
const sides = heralds.map((server, i) => ({ name: i === 0 ? 'before' : 'now', pid: server.pid, server }));
try {
  console.log(`POST ${endpoint.path} (${name}), ${options.connections} connections, ${slices} slices of ${slice} s each, the two heralds in turn (load average ${os.loadavg()[0]!.toFixed(1)})`);
  for (const side of sides) {
    await loadHook(side.server, endpoint.path, endpoint, options.connections, 'warm-up', options.warmupSeconds);
    await waitUntilIdle(side.pid);
  }
  const counts = await alternatingSlices(sides, [endpoint], slices, (side, _, i) => loadHook(side.server, endpoint.path, endpoint, options.connections, `slice ${i}`, slice));
  const [b, n] = sides.map((side) => counts.get(side)!.get(endpoint)!);
  for (const [side, slicesOf] of [[sides[0]!, b!], [sides[1]!, n!]] as const) {
    console.log(`${side.name}: CPU ms per request ${perRequest(slicesOf).toFixed(4)} (${summed(slicesOf).requests} requests)`);
  }
  const { all, median, quartiles } = cpuRatio(n!, b!);
  console.log(`now / before, CPU per request: ${all.toFixed(3)} over all slices; per slice pair median ${median.toFixed(3)}, quartiles ${quartiles[0].toFixed(3)}–${quartiles[1].toFixed(3)}`);
} finally {
  await Promise.all([...heralds, ...(echo ? [echo] : [])].map((server) => server.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
}
