/**
 * `npm run bench`: the webhook benchmark, then the platform benchmark when
 * bench/platform.bench.ts exists (it exports `run()`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { run as runHooksBench } from './hooks.bench.js';

const here = path.dirname(fileURLToPath(import.meta.url));

await runHooksBench();

const platformBench = path.join(here, 'platform.bench.ts');
if (fs.existsSync(platformBench)) {
  console.log('');
  const platform = (await import(pathToFileURL(platformBench).href)) as { run: () => Promise<unknown> };
  await platform.run();
}
