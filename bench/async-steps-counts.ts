import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** node's `--import` of the preload that counts a server's steps (bench/async-steps-preload.mjs) */
export const COUNTING_ARGS = ['--import', path.join(path.dirname(fileURLToPath(import.meta.url)), 'async-steps-preload.mjs')];

/** what the preload writes: steps between its two SIGUSR2s, and where they were made */
export interface AsyncStepCounts {
  promises: number;
  statements: number;
  commits: number;
  allocated: number;
  /** allocation sites, bytes */
  top: [string, number][];
  /** promise sites (sampled, empty unless asked for) */
  promiseTop: [string, number][];
  /** SQLite statements by their SQL */
  statementTop: [string, number][];
}

/** the environment that has the preload write its counts to `out` (with the promise sites when `sites`) */
export const countingEnv = (out: string, sites: boolean): Record<string, string> => ({ ASYNC_STEPS_OUT: out, ASYNC_STEPS_SITES: sites ? '1' : '' });

/** the counts once the preload has written them, after the second SIGUSR2 (`who` names the server in the error) */
export async function readCounts(out: string, who = 'the server'): Promise<AsyncStepCounts> {
  for (let waited = 0; !fs.existsSync(out); waited += 50) {
    if (waited > 30_000) throw new Error(`${who}: no counts written to ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return JSON.parse(fs.readFileSync(out, 'utf8')) as AsyncStepCounts;
}
