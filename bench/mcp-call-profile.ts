/**
 * Where herald's CPU goes in a governed call through /mcp: herald with `--cpu-prof`, the SDK's
 * client (bench/mcp-bare-client.ts) calling echo__echo through /mcp, then the same call straight
 * to the echo server, in the same run; prints herald's CPU per call against the bare client's
 * (the `npm run bench:tools` row's figures), the load average, and the profile's top functions
 * by self time over herald's whole life (start-up included, a small share at these durations).
 * Usage: `node --import tsx bench/mcp-call-profile.ts` (BENCH_DURATION, BENCH_WARMUP,
 * BENCH_TOOL_CONNECTIONS as the bench's; BENCH_TOP: how many functions, 25).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bareClientScript, measureBare } from './bare-tool-calls.js';
import { startChildServer } from './child-server.js';
import { API_KEY, SERVER_NAME, startToolsHerald } from './tool-calls-herald.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seconds = Number(process.env.BENCH_DURATION ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 3);
const concurrency = Number(process.env.BENCH_TOOL_CONNECTIONS ?? 10);
const top = Number(process.env.BENCH_TOP ?? 25);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** a V8 CPU profile's functions by self time (its samples), as a share of all samples */
export function selfTimes(file: string, count: number): { share: number; name: string }[] {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: ProfileNode[] };
  const byName = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '')}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    byName.set(name, (byName.get(name) ?? 0) + hits);
  }
  return [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, hits]) => ({ share: hits / total, name }));
}

const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-mcp-profile-'));
const script = await bareClientScript();
const echo = await startChildServer({ name: 'mcp-http', args: ['--import', 'tsx', path.join(ROOT, 'bench/mcp-echo-server.ts')], cwd: ROOT });
const herald = await startToolsHerald({ agents: [{ server: undefined, calls: 0 }], model: 'http://127.0.0.1:9', httpServer: echo.url, withStdio: false, cpuProfileDir: profileDir });
try {
  const viaMcp = (w: number, s: number) => measureBare(script, { server: { url: `${herald.url}/mcp`, serverPid: herald.pid, headers: { authorization: `Bearer ${API_KEY}` } }, tool: `${SERVER_NAME.http}__echo`, concurrency, callsPerTurn: 1, warmupSeconds: w, seconds: s });
  const direct = (w: number, s: number) => measureBare(script, { server: { url: echo.url, serverPid: echo.pid }, tool: 'echo', concurrency, callsPerTurn: 1, warmupSeconds: w, seconds: s });
  await viaMcp(0, warmupSeconds);
  const through = await viaMcp(warmupSeconds, seconds);
  const bare = await direct(warmupSeconds, seconds);
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`load average ${load}; ${concurrency} connections, ${seconds} s each`);
  console.log(`through /mcp: ${through.callsPerSecond} calls/s, p50 ${through.callP50Ms} ms; herald's CPU ${through.serverCpuMsPerCall!.toFixed(3)} ms/call`);
  console.log(`straight to the server: ${bare.callsPerSecond} calls/s; the bare client's CPU ${bare.cpuMsPerCall!.toFixed(3)} ms/call`);
  console.log(`herald adds ${(through.serverCpuMsPerCall! - bare.cpuMsPerCall!).toFixed(3)} ms/call`);
} finally {
  await herald.stop(10_000);
  await echo.stop();
}
const file = fs.readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
if (file) {
  console.log(`\nherald's top ${top} functions by self time (${path.join(profileDir, file)}):`);
  for (const { share, name } of selfTimes(path.join(profileDir, file), top)) console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
}
