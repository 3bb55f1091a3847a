#!/usr/bin/env node
// herald runs the compiled JavaScript of dist/ when a build is there and newer than every source
// (`npm install` builds it), otherwise its TypeScript sources through tsx: a checkout runs without
// a build, and an edited source is never shadowed by an older build.
import v8 from 'node:v8';
import { buildIsFresh } from './build-stamp.mjs';

// start-up allocates in bursts that would grow V8's young generation to its maximum and keep it
// there, idle: held at its initial size until `serve` listens (src/gateway/serving-heap.ts)
v8.setFlagsFromString('--semi-space-growth-factor=1');

// start-up runs most of its code once (module bodies, the config's schema, a thousand mappings
// compiled alike), yet V8's optimising compiler works on whatever gets warm, on threads whose CPU
// the start pays for and whose code the first requests rarely reuse. Off until `serve` listens
// (src/gateway/serving-heap.ts turns it back on), or for a moment in any other command; left as
// the operator set it when node's flags name it (the same test there).
const operatorFlags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
if (!/--(no[-_])?(opt|turbofan|jitless|max[-_]opt|always[-_](opt|turbofan))\b/.test(operatorFlags)) {
  v8.setFlagsFromString('--no-opt');
  setTimeout(() => v8.setFlagsFromString('--opt'), 2_000).unref();
}

let entry = buildIsFresh()
  ? await import('../dist/src/cli/main.js').then(
      (main) => ({ main, plugins: () => import('../dist/plugins/listings.js') }),
      () => undefined,
    )
  : undefined;
if (!entry) {
  const { register } = await import('tsx/esm/api');
  const { register: registerCommonJs } = await import('tsx/cjs/api');
  register();
  // a .ts transform in a project without "type": "module" is CommonJS: Node loads it through require
  registerCommonJs();
  entry = { main: await import('../src/cli/main.ts'), plugins: () => import('../plugins/listings.ts') };
}
// the entry point hands the built-in plugins in (src/ never imports plugins/ itself), as a loader:
// `--help` and the like never load them; a command gets their listings, each plugin loaded once used
const builtins = async () => (await entry.plugins()).builtinListings;
process.exitCode = await entry.main.main(process.argv.slice(2), builtins);
