#!/usr/bin/env node
// herald runs its TypeScript sources through tsx: no build step, and .ts transforms load the same way.
import { register } from 'tsx/esm/api';
import { register as registerCommonJs } from 'tsx/cjs/api';

register();
// a .ts transform in a project without "type": "module" is CommonJS: Node loads it through require
registerCommonJs();
const { main } = await import('../src/cli/main.ts');
// the entry point hands the built-in plugins in (src/ never imports plugins/ itself), as a loader:
// `--help` and the like never load them
const builtins = async () => (await import('../plugins/index.ts')).builtinPlugins;
process.exitCode = await main(process.argv.slice(2), builtins);
