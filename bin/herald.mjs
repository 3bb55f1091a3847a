#!/usr/bin/env node
// herald runs its TypeScript sources through tsx: no build step, and .ts transforms load the same way.
import { register } from 'tsx/esm/api';
import { register as registerCommonJs } from 'tsx/cjs/api';

register();
// a .ts transform in a project without "type": "module" is CommonJS: Node loads it through require
registerCommonJs();
const { main } = await import('../src/cli/main.ts');
// the entry point hands the built-in plugins in: src/ never imports plugins/ itself
const { builtinPlugins } = await import('../plugins/index.ts');
process.exitCode = await main(process.argv.slice(2), builtinPlugins);
