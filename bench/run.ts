/**
 * `npm run bench`: the webhook benchmark (SQLite: wake, agent, mapped hooks and a signed preset webhook, GitHub's
 * issues.opened through the github preset, bench/signed-hook.ts; then PostgreSQL with 1 replica, then 1 and 2 with each server held to a
 * host's share of the CPUs where cgroups allow, bench/cpu-quota.ts), the scale benchmark
 * (mappings, cold start, idle RSS, /metrics on 1M rows), the run drain (one busy session vs many), schedules (10,000 jobs: start, idle CPU, due-to-claim lag under webhook load), the platform benchmark when
 * bench/platform.bench.ts exists (it exports `run()`), then the tools benchmark (herald's CPU per MCP tool call against a bare SDK client's).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionsFromEnv, run as runHooksBench } from './hooks.bench.js';
import { CpuQuota } from './cpu-quota.js';
import { replicaSetupFromEnv, run as runPostgresBench } from './postgres.bench.js';
import { run as runDrainBench } from './run-drain.bench.js';
import { run as runScaleBench } from './scale.bench.js';
import { run as runSchedulesBench } from './schedules.bench.js';
import { run as runToolCallsBench } from './tool-calls.bench.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const options = optionsFromEnv();
await runHooksBench(options);
console.log('');
// one replica as a user runs it; then two against one, each server held to a host's share: on one
// machine an unheld pair takes the CPU the first replica and PostgreSQL need. A quarter of a core
// each leaves PostgreSQL, whose backends spend about twice a replica's CPU on the agent row, and the
// load room on two cores (BENCH_REPLICA_CPU for another share). Where no quota can be made, one
// run measures both unheld, as a held pass would only measure the one replica again.
if (CpuQuota.available()) {
  await runPostgresBench(options, { pairs: false });
  console.log('');
  await runPostgresBench(options, { pairs: true, replicaCpu: replicaSetupFromEnv().replicaCpu ?? 0.25 });
} else {
  await runPostgresBench(options, { pairs: true });
}
console.log('');
await runScaleBench(options);
console.log('');
await runDrainBench();
console.log('');
await runSchedulesBench(options);

const platformBench = path.join(here, 'platform.bench.ts');
if (fs.existsSync(platformBench)) {
  console.log('');
  const platform = (await import(pathToFileURL(platformBench).href)) as { run: () => Promise<unknown> };
  await platform.run();
}

console.log('');
await runToolCallsBench();
