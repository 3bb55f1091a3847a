/**
 * Where herald's CPU goes in a governed call through /mcp: herald with `--cpu-prof`, the SDK's
 * client (bench/mcp-bare-client.ts) calling echo__echo through /mcp, then the same call straight
 * to the echo server, in the same run; prints herald's CPU per call against the bare client's
 * (the `npm run bench:tools` row's figures), the load average, and the profile's top functions
 * by self time over herald's whole life (start-up included, a small share at these durations).
 * Usage: `node --import tsx bench/mcp-call-profile.ts` (BENCH_DURATION, BENCH_WARMUP,
 * BENCH_TOOL_CONNECTIONS, BENCH_ROUNDS as the bench's; BENCH_TOP: how many functions, 25;
 * BENCH_BEFORE: another checkout whose herald is measured the same way in each round, before this one's).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareClientScript, measureBare } from './bare-tool-calls.js';
import { startChildServer } from './child-server.js';
import { selfTimes } from './cpu-profile-top.js';
import { API_KEY, SERVER_NAME, startToolsHerald, type Measurement } from './tool-calls-herald.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_DURATION ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 3);
const concurrency = Number(process.env.BENCH_TOOL_CONNECTIONS ?? 10);
const top = Number(process.env.BENCH_TOP ?? 25);

const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-mcp-profile-'));
const before = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE, 'bin/herald.mjs') : undefined;
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const script = await bareClientScript();
const echo = await startChildServer({ name: 'mcp-http', args: ['--import', 'tsx', path.join(ROOT, 'bench/mcp-echo-server.ts')], cwd: ROOT });

/** herald's CPU per call through /mcp, a fresh herald (this checkout's, or `bin`'s) warmed up first; profiled with `profile` */
async function throughMcp(bin: string | undefined, profile = false): Promise<Measurement> {
  const herald = await startToolsHerald({ agents: [{ server: undefined, calls: 0 }], model: 'http://127.0.0.1:9', httpServer: echo.url, withStdio: false, cpuProfileDir: profile ? profileDir : undefined, bin });
  try {
    const via = (w: number, s: number) => measureBare(script, { server: { url: `${herald.url}/mcp`, serverPid: herald.pid, headers: { authorization: `Bearer ${API_KEY}` } }, tool: `${SERVER_NAME.http}__echo`, concurrency, callsPerTurn: 1, warmupSeconds: w, seconds: s });
    await via(0, warmupSeconds);
    return await via(warmupSeconds, seconds);
  } finally {
    await herald.stop(10_000);
  }
}

try {
  const rows: string[] = [];
  for (let round = 0; round < rounds; round++) {
    // the two heralds in turn first: neither always meets the machine as the other left it
    let old: Measurement | undefined;
    let now: Measurement;
    if (round % 2 === 0) {
      old = before ? await throughMcp(before) : undefined;
      now = await throughMcp(undefined);
    } else {
      now = await throughMcp(undefined);
      old = before ? await throughMcp(before) : undefined;
    }
    const bare = await measureBare(script, { server: { url: echo.url, serverPid: echo.pid }, tool: 'echo', concurrency, callsPerTurn: 1, warmupSeconds, seconds });
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    rows.push(
      `round ${round + 1} (load average ${load}): bare client ${bare.cpuMsPerCall!.toFixed(3)} ms/call (${bare.callsPerSecond} calls/s); ` +
        (old ? `herald before ${old.serverCpuMsPerCall!.toFixed(3)} ms/call (${old.callsPerSecond} calls/s, adds ${(old.serverCpuMsPerCall! - bare.cpuMsPerCall!).toFixed(3)}); ` : '') +
        `herald now ${now.serverCpuMsPerCall!.toFixed(3)} ms/call (${now.callsPerSecond} calls/s, adds ${(now.serverCpuMsPerCall! - bare.cpuMsPerCall!).toFixed(3)})`,
    );
    console.log(rows.at(-1));
  }
  console.log(`${concurrency} connections, ${seconds} s per measurement after ${warmupSeconds} s of warm-up${before ? `; before: ${before}` : ''}`);
  // the profile from a run of its own: --cpu-prof costs CPU, and no compared figure pays it
  const profiled = await throughMcp(undefined, true);
  console.log(`profiled run: herald ${profiled.serverCpuMsPerCall!.toFixed(3)} ms/call with --cpu-prof`);
} finally {
  await echo.stop();
}
// herald's main thread wrote the largest profile (the module loader's worker writes one too)
const file = fs
  .readdirSync(profileDir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort((a, b) => fs.statSync(path.join(profileDir, b)).size - fs.statSync(path.join(profileDir, a)).size)[0];
if (file) {
  console.log(`\nherald's top ${top} functions by self time, idle left out (${path.join(profileDir, file)}):`);
  for (const { share, name } of selfTimes(path.join(profileDir, file), top)) console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
}
