/**
 * `npm run bench`: the webhook benchmark (SQLite, then PostgreSQL with 1 and 2 replicas), the scale benchmark
 * (mappings, cold start, idle RSS, /metrics on 1M rows), the run drain (one busy session vs many), then the platform benchmark when
 * bench/platform.bench.ts exists (it exports `run()`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { optionsFromEnv, run as runHooksBench } from './hooks.bench.js';
import { run as runPostgresBench } from './postgres.bench.js';
import { run as runDrainBench } from './run-drain.bench.js';
import { run as runScaleBench } from './scale.bench.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const options = optionsFromEnv();
await runHooksBench(options);
console.log('');
await runPostgresBench(options);
console.log('');
await runScaleBench(options);
console.log('');
await runDrainBench();

const platformBench = path.join(here, 'platform.bench.ts');
if (fs.existsSync(platformBench)) {
  console.log('');
  const platform = (await import(pathToFileURL(platformBench).href)) as { run: () => Promise<unknown> };
  await platform.run();
}
