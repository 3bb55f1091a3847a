#!/usr/bin/env node
// herald runs its TypeScript sources through tsx: no build step, and .ts transforms load the same way.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
