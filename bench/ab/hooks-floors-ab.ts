/**
 * herald against the webhook baselines of hooks.bench.ts (the same-records one and the
 * herald-schema one, bench/baseline-database.ts), loaded in turn every `BENCH_SLICE` seconds for
 * `BENCH_SLICES` slices, pinned to one CPU (ab-slices.ts). hooks.bench.ts measures each server
 * alone for 10 s, one after the other, and a shared VM's speed moves between two of them by more
 * than the difference being measured; taken in turn, every server meets the same drift.
 *
 * Each slice's CPU and time run from its load's start until the server is idle again, so on the
 * rows where both execute runs, a server's backlog counts where it is executed: "executed req/s"
 * is the requests over that time (executed-table.ts's measure, slice by slice).
 *
 * `node --import tsx bench/ab/hooks-floors-ab.ts` (build first). Env: BENCH_ENDPOINT
 * (agent-executed; one of hooks.bench.ts's endpoint names), BENCH_SLICES (20), BENCH_SLICE (2 s),
 * BENCH_WARMUP (3 s, each server before the first slice), BENCH_CONNECTIONS (50),
 * BENCH_BASELINE_SCHEMA (both), BENCH_LOG_LEVEL (warn).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alternatingSlices, cpuRatio, perRequest, summed, type SliceCount } from './ab-slices.js';
import { BASELINE_LABEL } from '../baseline-database.js';
import { endpointNamed, loadHook, optionsFromEnv, startServers } from '../hooks.bench.js';
import { waitUntilIdle } from '../process-stats.js';
import { formatTable } from '../table.js';

const name = process.env.BENCH_ENDPOINT || 'agent-executed';
const slices = Number(process.env.BENCH_SLICES ?? 20);
const slice = Number(process.env.BENCH_SLICE ?? 2);
const endpoint = endpointNamed(name);
const options = { ...optionsFromEnv(), heraldRoots: [], endpoints: [name], tracing: ['off' as const] };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-hooks-floors-'));
const { heralds, baselines, echo } = await startServers(dir, options);
const sides = [
  { name: 'herald', pid: heralds[0]!.pid, server: heralds[0]!, path: endpoint.path },
  ...[...baselines].map(([server, schema]) => ({ name: BASELINE_LABEL[schema], pid: server.pid, server, path: endpoint.baselinePath ?? endpoint.path })),
];
try {
  console.log(`POST ${endpoint.path} (${name}), ${options.connections} connections, ${slices} slices of ${slice} s each, the servers in turn (load average ${os.loadavg()[0]!.toFixed(1)})`);
  for (const side of sides) {
    await loadHook(side.server, side.path, endpoint, options.connections, 'warm-up', options.warmupSeconds);
    await waitUntilIdle(side.pid);
  }
  const counts = await alternatingSlices(sides, [endpoint], slices, (side, _, i) => loadHook(side.server, side.path, endpoint, options.connections, `slice ${i}`, slice));
  const slicesOf = (side: (typeof sides)[number]) => counts.get(side)!.get(endpoint)!;
  const herald = slicesOf(sides[0]!);
  const rows = sides.map((side) => {
    const own = slicesOf(side);
    const against = side === sides[0] ? ['', '', ''] : vsBaseline(herald, own);
    return [side.name, summed(own).requests, perRequest(own).toFixed(4), Math.round(executedPerSecond(own)), ...against];
  });
  console.log(formatTable(['server', 'requests', 'CPU ms/request', 'executed req/s', 'herald CPU × it', 'slice pairs: median (quartiles)', 'herald executed req/s, of it'], rows));
} finally {
  await Promise.all([...heralds, ...baselines.keys(), ...(echo ? [echo] : [])].map((server) => server.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
}

/** the requests over the time their server was busy with them, in all of `of` */
function executedPerSecond(of: SliceCount[]): number {
  const { requests, busyMs } = summed(of);
  return requests / (busyMs / 1000);
}

/** herald's CPU per request over a baseline's, in all and slice by slice, and its executed req/s as a share of the baseline's */
function vsBaseline(herald: SliceCount[], baseline: SliceCount[]): string[] {
  const { all, median, quartiles } = cpuRatio(herald, baseline);
  return [`${all.toFixed(3)}x`, `${median.toFixed(3)} (${quartiles[0].toFixed(3)}–${quartiles[1].toFixed(3)})`, `${Math.round((100 * executedPerSecond(herald)) / executedPerSecond(baseline))}%`];
}
