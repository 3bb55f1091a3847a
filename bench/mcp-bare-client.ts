/**
 * The tools benchmark's floor: a bare script calling an MCP server's `echo` through the SDK's own
 * Client and transport (stdio: it starts the server itself; Streamable HTTP: it connects to the
 * one given), nothing else. `concurrency` workers each make `callsPerTurn` calls at once and,
 * when all are answered, the next ones: the calls and the concurrency of a herald turn that makes
 * that many calls, without the model and the turn around them.
 * Reads its options as one JSON line on argv[2]; prints `measuring` when the measured span starts
 * (after the connection, the tool list and the warm-up), then its figures as one JSON line.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cpuMillis } from './process-stats.js';
import { percentile } from './table.js';

export interface BareOptions {
  /** a stdio server to start (`command`, `args`), or a Streamable HTTP endpoint (`url`, its `headers`) and its process (`serverPid`) */
  server: { command: string; args?: string[] } | { url: string; serverPid: number; headers?: Record<string, string> };
  tool: string;
  concurrency: number;
  callsPerTurn: number;
  warmupSeconds: number;
  seconds: number;
}

export interface BareFigures {
  calls: number;
  seconds: number;
  /** this process's CPU (user + system) over the measured span */
  cpuMs: number;
  /** the server process's CPU over the same span */
  serverCpuMs: number;
  /** the time of a call from its request to its answer: median and 99th percentile */
  callP50Ms: number;
  callP99Ms: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as BareOptions;

/**
 * fetch as herald's MCP transport calls it (src/tools/mcp/mcp-transport.ts): the transport's one
 * signal for every request has no listener limit, so neither side pays for a
 * MaxListenersExceededWarning per call, and herald's figure is set against a fair one.
 */
const limitless = new WeakSet<AbortSignal>();
const unlimitedFetch = (url: string | URL, init?: RequestInit): Promise<Response> => {
  if (init?.signal && !limitless.has(init.signal)) {
    limitless.add(init.signal);
    setMaxListeners(0, init.signal);
  }
  return fetch(url, init);
};
const stdio = 'command' in options.server;
const transport =
  'command' in options.server
    ? new StdioClientTransport({ command: options.server.command, args: options.server.args ?? [], stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(options.server.url), { requestInit: { headers: options.server.headers ?? {} }, fetch: unlimitedFetch });
const client = new Client({ name: 'bare', version: '1' });
await client.connect(transport);
await client.listTools();
const serverPid = stdio ? (transport as StdioClientTransport).pid! : (options.server as { serverPid: number }).serverPid;

let n = 0;
async function drive(seconds: number, callMs?: number[]): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let calls = 0;
  const worker = async () => {
    while (performance.now() < end) {
      await Promise.all(
        Array.from({ length: options.callsPerTurn }, async () => {
          const started = performance.now();
          const result = await client.callTool({ name: options.tool, arguments: { message: `call ${n++}` } });
          if (result.isError) throw new Error(`the call failed: ${JSON.stringify(result.content)}`);
          callMs?.push(performance.now() - started);
          calls++;
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return calls;
}

await drive(options.warmupSeconds);
console.log('measuring');
const callMs: number[] = [];
const cpuBefore = process.cpuUsage();
const serverBefore = cpuMillis(serverPid);
const started = performance.now();
const calls = await drive(options.seconds, callMs);
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const serverCpuMs = cpuMillis(serverPid) - serverBefore;
callMs.sort((a, b) => a - b);
const figures: BareFigures = { calls, seconds, cpuMs: (cpu.user + cpu.system) / 1000, serverCpuMs, callP50Ms: percentile(callMs, 0.5), callP99Ms: percentile(callMs, 0.99) };
console.log(JSON.stringify(figures));
await client.close();
