#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install`/`npm ci` run it): compiles src/ and plugins/ to
// dist/, which bin/herald.mjs runs instead of the sources once it is fresh (no TypeScript loader at
// start: ~36 MB and most of the start-up time). dist/ is never committed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DIST, ROOT, STAMP } from './build-stamp.mjs';

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // a production install (npm ci --omit=dev) has no compiler: herald runs its sources through tsx
  console.error('herald build: typescript is not installed; skipped (herald runs from its TypeScript sources)');
  process.exit(0);
}
// a source saved while tsc runs is newer than the stamp: that build is stale at once, never trusted
const startedAt = Date.now();
fs.rmSync(DIST, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);
// files the compiled code reads beside itself
fs.cpSync(path.join(ROOT, 'src/http/console/public'), path.join(DIST, 'src/http/console/public'), { recursive: true });
fs.writeFileSync(STAMP, `${JSON.stringify({ startedAt })}\n`);
