import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { AS_THE_BUILD } from './compiled-baseline.js';
import type { BareFigures, BareOptions } from './mcp-bare-client.js';
import { trackPeakMemory } from './process-stats.js';
import type { Measurement } from './tool-calls-herald.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** the bare client as plain JavaScript, bundled as `npm run build` bundles herald: no TypeScript loader in the measured process */
export async function bareClientScript(): Promise<string> {
  const outfile = path.join(ROOT, '.tmp/bench/mcp-bare-client.mjs');
  await build({ entryPoints: [path.join(ROOT, 'bench/mcp-bare-client.ts')], outfile, ...AS_THE_BUILD });
  return outfile;
}

/** one run of the bare client (bench/mcp-bare-client.ts) in its own process; its peak RSS over the measured span */
export function measureBare(script: string, options: BareOptions): Promise<Measurement> {
  const child = spawn(process.execPath, [script, JSON.stringify(options)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  let peak: { stop(): number } | undefined;
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (!peak && output.includes('measuring\n')) peak = trackPeakMemory(child.pid!);
    });
    child.once('exit', (code) => {
      const peakRss = peak?.stop() ?? NaN;
      const last = output.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) return reject(new Error(`the bare client exited with ${code}: ${output}`));
      const f = JSON.parse(last) as BareFigures;
      const turns = f.calls / options.callsPerTurn;
      resolve({
        turnsPerSecond: Math.round(turns / f.seconds),
        callsPerSecond: Math.round(f.calls / f.seconds),
        callP50Ms: f.callP50Ms,
        callP99Ms: f.callP99Ms,
        cpuMsPerTurn: f.cpuMs / turns,
        cpuMsPerCall: f.cpuMs / f.calls,
        serverCpuMsPerCall: f.serverCpuMs / f.calls,
        peakRss,
      });
    });
  });
}
