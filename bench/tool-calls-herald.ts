import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { cpuProfileArgs, startChildServer, type ChildServer } from './child-server.js';
import { runLoad } from './load.js';
import { cpuMillis, trackPeakMemory, waitUntilIdle } from './process-stats.js';
import { percentile } from './table.js';

/**
 * herald as the tools benchmark runs it: its own process on a fresh SQLite store, its agents'
 * model the tool-calling upstream (bench/tool-calling-upstream.ts), and its turns driven by chat
 * completions from a separate process (autocannon, bench/load.ts).
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const API_KEY = 'sk-bench-0123456789abcdef';
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';
/** the fixed header of the Streamable HTTP server (the echo server takes any): what a server without a sign-in is sent */
const FIXED_HEADER = { authorization: 'Bearer bench-fixed-token-0123456789abcdef' };
export const EVERYTHING = path.join(ROOT, 'node_modules/.bin/mcp-server-everything');

/**
 * the MCP servers measured: server-everything over stdio, an SDK server over Streamable HTTP
 * with a fixed header, and an SDK server that asks for OAuth, signed in to (its bearer token
 * from herald's store, bench/mcp-oauth-echo-server.ts)
 */
export type ServerKind = 'stdio' | 'http' | 'oauth';
/** each kind's server as herald's config names it: its echo is `<name>__echo` to the model */
export const SERVER_NAME: Record<ServerKind, string> = { stdio: 'everything', http: 'echo', oauth: 'signed' };

/** an agent: granted one server's tools, its model calling `echo` `calls` times a turn; or granted no tools */
export type AgentKind = { server: ServerKind; calls: number } | { server: undefined; calls: 0 };
export const agentId = ({ server, calls }: AgentKind) => (server ? `${SERVER_NAME[server]}-${calls}` : 'no-tools');

/** one measurement of one process making calls: herald's turns or the bare client's */
export interface Measurement {
  turnsPerSecond: number;
  callsPerSecond: number;
  /** a turn as the load generator sees it (herald only) */
  turnP50Ms?: number;
  turnP99Ms?: number;
  /** a call as its caller sees it: herald's record (whole ms), the bare client's clock */
  callP50Ms?: number;
  callP99Ms?: number;
  /** the calling process's CPU (user + system) per turn, and per call */
  cpuMsPerTurn: number;
  cpuMsPerCall?: number;
  /** the MCP server's CPU per call */
  serverCpuMsPerCall?: number;
  peakRss: number;
  /** the measured span, the load and herald's drain after it (process.hrtime's clock) */
  window?: { fromNs: bigint; toNs: bigint };
}

export interface ToolsHerald extends ChildServer {
  dir: string;
  /** the server-everything process herald started (0 without the stdio server) */
  stdioServerPid: number;
}

export interface ToolsHeraldSetup {
  agents: AgentKind[];
  /** the upstream model's origin */
  model: string;
  /** the Streamable HTTP server's URL, when it is measured */
  httpServer?: string;
  /** the URL of the server that asks for OAuth, when it is measured: herald signs in to it before the load */
  oauthServer?: string;
  withStdio: boolean;
  cpuProfileDir?: string;
  /** another checkout's bin/herald.mjs (a before-and-after in one run); this one's by default */
  bin?: string;
  /** node's flags before herald's script (a preload that counts, bench/async-steps-preload.mjs) and its environment */
  nodeArgs?: string[];
  env?: Record<string, string>;
}

/** herald with the servers measured, an agent for each kind, ready once its servers are */
export async function startToolsHerald(setup: ToolsHeraldSetup): Promise<ToolsHerald> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-tools-bench-'));
  const configFile = path.join(dir, 'herald.json');
  const mcpServers: Record<string, unknown> = {};
  if (setup.withStdio) mcpServers[SERVER_NAME.stdio] = { command: EVERYTHING };
  if (setup.httpServer) mcpServers[SERVER_NAME.http] = { url: setup.httpServer, headers: FIXED_HEADER };
  if (setup.oauthServer) mcpServers[SERVER_NAME.oauth] = { url: setup.oauthServer };
  // the sign-in comes back to gateway.publicUrl: a port known before herald listens on it
  const port = setup.oauthServer ? await freePort() : 0;
  const agents = setup.agents.map((kind) => ({
    id: agentId(kind),
    model: `up/calls-${kind.calls}-${kind.server ? SERVER_NAME[kind.server] : 'none'}__echo`,
    instructions: 'Be brief.',
    ...(kind.server && { tools: { servers: [SERVER_NAME[kind.server]] } }),
  }));
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port, auth: { token: GATEWAY_TOKEN }, ...(port && { publicUrl: `http://127.0.0.1:${port}` }) },
      storage: { sqlite: './herald.db' },
      heartbeat: { every: '0' },
      models: { providers: { up: { api: 'openai', baseUrl: `${setup.model}/v1` } } },
      agents: { list: agents },
      // the key's grant: the same servers, called straight through /mcp (governed calls, no model)
      platform: { mcp: { enabled: true }, apiKeys: [{ name: 'bench', key: API_KEY, tools: { servers: Object.keys(mcpServers) } }], rateLimit: { requestsPerMinute: 1_000_000_000 } },
      tools: { mcpServers, maxToolCalls: Math.max(20, ...setup.agents.map((a) => a.calls)), ...(setup.oauthServer && { oauth: { encryptionKey: 'bench-encryption-key-0123456789abcdef' } }) },
    }),
  );
  const server = await startChildServer({
    name: 'herald',
    args: [...cpuProfileArgs(setup.cpuProfileDir), ...(setup.nodeArgs ?? []), setup.bin ?? path.join(ROOT, 'bin/herald.mjs'), 'serve', '--config', configFile],
    cwd: ROOT,
    env: { HERALD_LOG_LEVEL: 'warn', ...setup.env },
  });
  const stop = async (graceMs?: number) => {
    await server.stop(graceMs);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (setup.oauthServer) await signIn(server.url);
    // its servers connect in the background: the load waits until every one is ready
    for (let waited = 0; ; waited += 100) {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { degraded?: { tools?: unknown } };
      if (!ready.degraded?.tools) break;
      if (waited > 30_000) throw new Error(`herald's tool servers did not connect: ${JSON.stringify(ready.degraded)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { ...server, dir, stdioServerPid: setup.withStdio ? childServerPid(server.pid) : 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A person's sign-in, as the console's Sign in button starts it: once the server waits for one,
 * the authorize route's URL, its redirects followed (the demo authorization server consents at
 * once) back to herald's callback.
 */
async function signIn(herald: string): Promise<void> {
  for (let waited = 0; ; waited += 100) {
    const ready = (await (await fetch(`${herald}/readyz`)).json()) as { degraded?: { tools?: Record<string, string> } };
    if (ready.degraded?.tools?.[SERVER_NAME.oauth] === 'needs_authorization') break;
    if (waited > 30_000) throw new Error(`herald's signed-in server never asked for a sign-in: ${JSON.stringify(ready.degraded)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const started = await fetch(`${herald}/admin/tools/servers/${SERVER_NAME.oauth}/authorize`, { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  let url = ((await started.json()) as { authorizationUrl: string }).authorizationUrl;
  for (let hops = 0; hops < 5; hops++) {
    const page = await fetch(url, { redirect: 'manual' });
    const location = page.headers.get('location');
    if (!location) {
      if (page.status !== 200) throw new Error(`the sign-in ended with ${page.status}: ${await page.text()}`);
      return;
    }
    url = new URL(location, url).href;
  }
  throw new Error('the sign-in redirected too often');
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** the stdio server herald started: its child process running server-everything */
function childServerPid(parent: number): number {
  for (const task of fs.readdirSync(`/proc/${parent}/task`)) {
    for (const pid of fs.readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('server-everything')) return Number(pid);
    }
  }
  throw new Error('herald has no server-everything process');
}

/** chat completions to one agent for `seconds`, from a separate process */
export function loadTurns(herald: ChildServer, kind: AgentKind, connections: number, seconds: number) {
  return runLoad({
    url: herald.url,
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({ model: agentId(kind), messages: [{ role: 'user', content: 'Echo something, please.' }] }),
    connections,
    durationSeconds: seconds,
  });
}

/** one chat completion to the agent of `kind`, answered (its turn's calls made) */
export async function oneTurn(herald: ChildServer, kind: AgentKind): Promise<number> {
  const res = await fetch(`${herald.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({ model: agentId(kind), messages: [{ role: 'user', content: 'Echo something, please.' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * One agent's turns: herald's CPU from the load's start until it is idle again, per turn; and
 * for turns with calls, the calls as herald recorded them and the server's CPU per call.
 */
export async function measureHerald(herald: ToolsHerald, kind: AgentKind, options: { connections: number; seconds: number; warmupSeconds: number; serverPid?: number; profiling?: boolean }): Promise<Measurement> {
  if (options.warmupSeconds > 0) await loadTurns(herald, kind, options.connections, options.warmupSeconds);
  await waitUntilIdle(herald.pid);
  // the page cache herald's store dirtied is written back now, not during the measurement
  spawnSync('sync');
  const since = Date.now();
  const fromNs = process.hrtime.bigint();
  const cpuBefore = cpuMillis(herald.pid);
  const serverBefore = options.serverPid ? cpuMillis(options.serverPid) : 0;
  const peak = trackPeakMemory(herald.pid);
  const result = await loadTurns(herald, kind, options.connections, options.seconds);
  // the load's span in a V8 profile's clock (CLOCK_MONOTONIC, µs), to cut the profile into the rows it holds
  if (options.profiling) console.log(`profile span of ${agentId(kind)}: ${fromNs / 1000n}-${process.hrtime.bigint() / 1000n}`);
  await waitUntilIdle(herald.pid);
  const toNs = process.hrtime.bigint();
  const cpuMs = cpuMillis(herald.pid) - cpuBefore;
  const serverCpuMs = options.serverPid ? cpuMillis(options.serverPid) - serverBefore : 0;
  const peakRss = peak.stop();
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors from herald`);
  const measured: Measurement = {
    turnsPerSecond: Math.round(result.requestsPerSecond),
    callsPerSecond: Math.round(result.requestsPerSecond * kind.calls),
    turnP50Ms: result.latencyP50Ms,
    turnP99Ms: result.latencyP99Ms,
    cpuMsPerTurn: cpuMs / Math.max(1, result.total),
    peakRss,
    window: { fromNs, toNs },
  };
  if (!kind.calls) return measured;
  // each answered turn's calls must have succeeded, or the figures measure failures; the load's
  // end closes its connections, which cancels the turns still in flight, and their calls
  const db = new Database(path.join(herald.dir, 'herald.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT status, error, duration_ms AS ms FROM tool_calls WHERE created_at >= ? AND agent_id = ?').all(since, agentId(kind)) as { status: string; error: string | null; ms: number | null }[];
    const succeeded = rows.filter((r) => r.status === 'succeeded');
    const failed = rows.find((r) => r.status !== 'succeeded' && !r.error?.includes('was cancelled'));
    if (failed || succeeded.length < result.total * kind.calls) throw new Error(`herald recorded ${succeeded.length} calls succeeded for ${result.total} turns of ${kind.calls}${failed ? `; one ${failed.status}: ${failed.error}` : ''}`);
    const durations = succeeded.map((r) => r.ms ?? 0).sort((a, b) => a - b);
    return { ...measured, callP50Ms: percentile(durations, 0.5), callP99Ms: percentile(durations, 0.99), serverCpuMsPerCall: serverCpuMs / rows.length };
  } finally {
    db.close();
  }
}
