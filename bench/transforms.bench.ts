/**
 * What the worker hop costs a transform: one mapped hook (the issue payload, schema and templates
 * of bench/mapped-hook.ts) with a trivial transform, through the mappings engine as the hook route
 * calls it, its transform run in the gateway's worker pool (`TransformPool`, what `herald serve`
 * does) and in the calling thread (`InProcessTransforms`, what it did before); beside it the same
 * mapping without a transform, which never reaches the pool.
 *
 * Sequential: wall µs per call, the latency a request gains. Concurrent (`TRANSFORM_BENCH_CONCURRENCY`
 * calls in flight, default 32): calls a second, the main thread's CPU µs per call (what the hop
 * takes from every other request; Linux, from /proc/self/task/<pid>/stat) and the process's CPU
 * µs per call (all threads, the workers' included). On a busy machine read the CPU columns: wall
 * times count the waits for a core. `TRANSFORM_BENCH_CALLS` (default 20000) calls per measurement, after 2000 to warm up.
 * Run: `node --import tsx bench/transforms.bench.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtinPlugins } from '../plugins/index.js';
import { InProcessTransforms } from '../src/mappings/transforms/in-process-transforms.js';
import { MappingsEngine } from '../src/mappings/mappings-engine.js';
import { compileMappingSources } from '../src/mappings/loading/resolve-mappings.js';
import { TransformPool } from '../src/mappings/transforms/transform-pool.js';
import type { TransformRunner } from '../src/mappings/transforms/transform-runner.js';
import { loadConfigValue } from '../src/plugin-host/load-config.js';
import { AGENT_MESSAGE_TEMPLATE, MAPPED_BODY, MAPPED_SCHEMA } from './mapped-hook.js';
import { formatTable } from './table.js';

const CALLS = Number(process.env.TRANSFORM_BENCH_CALLS ?? 20_000);
const CONCURRENCY = Number(process.env.TRANSFORM_BENCH_CONCURRENCY ?? 32);
const WARMUP = 2_000;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-transforms-bench-'));
fs.mkdirSync(path.join(dir, 'transforms'));
fs.writeFileSync(path.join(dir, 'transforms', 'label.mjs'), `export default (ctx) => ({ name: 'Issue ' + ctx.payload.issue.number });`);

const mapping = (transform: boolean) => ({
  id: 'bench',
  match: { path: 'bench' },
  schema: MAPPED_SCHEMA,
  messageTemplate: AGENT_MESSAGE_TEMPLATE,
  deliver: false,
  ...(transform && { transform: { module: 'label.mjs' } }),
});

async function engineWith(transform: boolean, runner?: TransformRunner): Promise<MappingsEngine> {
  const loaded = await loadConfigValue({ hooks: { enabled: true, token: 'bench-hook-token-0123456789abcdef' } }, path.join(dir, 'herald.json'), { builtins: builtinPlugins });
  const sources = [{ origin: 'bench', raw: mapping(transform) }];
  const ctx = { config: loaded.config, channelNames: loaded.plugins.channelNames(), transformRunner: runner };
  return new MappingsEngine(await compileMappingSources(sources, loaded, ctx));
}

/** CPU time of this process's main thread (its task id is the pid), in ms: utime + stime, in clock ticks of 10 ms */
function mainThreadCpuMs(): number {
  const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

let n = 0;
const request = () => ({ path: 'bench', payload: JSON.parse(MAPPED_BODY.replace('{n}', String(++n))) as unknown, headers: {}, query: {}, url: 'http://127.0.0.1/hooks/bench' });

async function calls(engine: MappingsEngine, count: number, inFlight: number): Promise<void> {
  let left = count;
  const lane = async () => {
    while (left-- > 0) {
      const outcome = await engine.handle(request());
      if (outcome.type !== 'action') throw new Error(`unexpected outcome ${outcome.type}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

async function measure(label: string, engine: MappingsEngine): Promise<(string | number)[]> {
  await calls(engine, WARMUP, CONCURRENCY);
  let start = performance.now();
  await calls(engine, CALLS, 1);
  const sequentialUs = ((performance.now() - start) * 1000) / CALLS;
  const mainThread = mainThreadCpuMs();
  const cpu = process.cpuUsage();
  start = performance.now();
  await calls(engine, CALLS, CONCURRENCY);
  const wallMs = performance.now() - start;
  const mainThreadMs = mainThreadCpuMs() - mainThread;
  const used = process.cpuUsage(cpu);
  return [
    label,
    sequentialUs.toFixed(1),
    Math.round((CALLS * 1000) / wallMs),
    ((mainThreadMs * 1000) / CALLS).toFixed(1),
    ((used.user + used.system) / CALLS).toFixed(1),
  ];
}

const pool = new TransformPool(128);
const rows = [
  await measure('no transform', await engineWith(false)),
  await measure('transform in-process', await engineWith(true, new InProcessTransforms())),
  await measure('transform in the worker pool', await engineWith(true, pool)),
];
await pool.close();
fs.rmSync(dir, { recursive: true, force: true });
console.log(`mapped hook with a trivial transform: ${CALLS} calls each, ${CONCURRENCY} in flight for the concurrent columns, ${os.availableParallelism()} CPUs`);
console.log(
  formatTable(['mapping', 'sequential µs/call', 'concurrent calls/s', 'main thread CPU µs/call', 'process CPU µs/call'], rows),
);
