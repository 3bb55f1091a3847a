/**
 * Tools benchmark: herald's own cost per tool call (all but the MCP server's and the model's
 * time), against a bare script calling the same server through the SDK (bench/mcp-bare-client.ts).
 *
 * herald is measured through its real path (bench/tool-calls-herald.ts): chat completions from a
 * separate process to an agent granted the server's tools, whose model
 * (bench/tool-calling-upstream.ts, its own process) answers each turn with N calls of the
 * server's `echo` at once, then, given their results, a final answer. The same turn without tool
 * calls (an agent granted the same tools whose model answers at once) is measured beside it, so
 * herald's CPU per call is (CPU per turn with N calls − CPU per turn without) / N: the calls
 * checked, recorded before and after, executed, their results sent back in a second model
 * request, the longer transcript stored. The bare client makes the same calls at the same
 * concurrency (a worker per connection, N calls at once) to the same server; its CPU per call is
 * what any caller of the SDK pays. An agent granted no tools shows what offering them costs a turn
 * that calls none.
 *
 * Servers: `node_modules/.bin/mcp-server-everything` over stdio (herald starts its own, the bare
 * client its own), an SDK Streamable HTTP server in a child process (bench/mcp-echo-server.ts,
 * one process, a session each) sent a fixed header, and the same call to an SDK server that asks
 * for OAuth (bench/mcp-oauth-echo-server.ts), which herald signs in to before the load (its
 * bearer token from the store, refreshed as it expires): herald's CPU per call to it is shown
 * beside the fixed header's. Then that server's access token is expired and N turns of one call
 * each are sent at once: the refreshes they cause are counted (one is right). herald's agents are warmed up once before the first round; each
 * measurement has its own warm-up and waits until herald is idle; each round starts one step
 * further along the order.
 *
 * Standalone: `node --import tsx bench/tool-calls.bench.ts`; `bench/run.ts` calls `run()`. Options:
 * `BENCH_DURATION` (10 s), `BENCH_WARMUP` (3 s), `BENCH_TOOL_CONNECTIONS` (10), `BENCH_TOOL_CALLS`
 * (calls per turn, `1,4`), `BENCH_TOOL_SERVERS` (`stdio,http,oauth`), `BENCH_ROUNDS` (medians of n
 * rounds), `BENCH_CPU_PROFILE=<dir>` (herald under --cpu-prof; each load's span is printed in the
 * profile's clock), `BENCH_PERF=<file>` (herald under Linux perf, each measurement's CPU split by
 * where it ran, bench/perf-split.ts). Figures are printed, never asserted.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bareClientScript, measureBare } from './bare-tool-calls.js';
import { startChildServer, type ChildServer } from './child-server.js';
import { PerfRecording, renderPerfSplit, type PerfWindow } from './perf-split.js';
import { API_KEY, EVERYTHING, measureHerald, oneTurn, SERVER_NAME, startToolsHerald, type AgentKind, type Measurement, type ServerKind } from './tool-calls-herald.js';
import { formatTable, mb, ms } from './table.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ToolCallsBenchOptions {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** calls per turn, a row each */
  callsPerTurn: number[];
  servers: ServerKind[];
  rounds: number;
  cpuProfileDir?: string;
  /** a file: `perf record` of herald goes there, and each of its measurements' CPU per turn is split by where it ran */
  perfFile?: string;
}

export function optionsFromEnv(env = process.env): ToolCallsBenchOptions {
  const list = (value: string | undefined, fallback: string) => (value || fallback).split(',').map((s) => s.trim()).filter(Boolean);
  return {
    seconds: Number(env.BENCH_DURATION ?? 10),
    warmupSeconds: Number(env.BENCH_WARMUP ?? 3),
    connections: Number(env.BENCH_TOOL_CONNECTIONS ?? 10),
    callsPerTurn: list(env.BENCH_TOOL_CALLS, '1,4').map(Number),
    servers: list(env.BENCH_TOOL_SERVERS, 'stdio,http,oauth') as ServerKind[],
    rounds: Number(env.BENCH_ROUNDS ?? 1),
    cpuProfileDir: env.BENCH_CPU_PROFILE || undefined,
    perfFile: env.BENCH_PERF ? path.resolve(env.BENCH_PERF) : undefined,
  };
}

export interface Row {
  /** the agent: its server and calls per turn (no server: granted no tools) */
  kind: AgentKind;
  caller: 'herald' | 'bare SDK client';
  runs: Measurement[];
}

export interface ToolCallsFigures {
  options: ToolCallsBenchOptions;
  rows: Row[];
  /** with `perfFile`: each herald measurement's CPU per turn by where it ran */
  perfSplit?: ReturnType<PerfRecording['split']>;
  /** the signed-in server's access token expired, then `calls` turns of one call each at once: the token refreshes they made */
  refreshes?: { calls: number; refreshes: number; failed: number };
  /** the bare client calling the HTTP server's echo through herald's /mcp (a governed call, no model), a run per round */
  throughMcp: Measurement[];
}

/** the bare SDK client has no sign-in: a signed-in server is measured against the same call with a fixed header */
const hasBareClient = (server: ServerKind) => server !== 'oauth';

export async function toolCallsBench(options: ToolCallsBenchOptions): Promise<ToolCallsFigures> {
  const script = await bareClientScript();
  const model = await startChildServer({ name: 'model', args: ['--import', 'tsx', path.join(ROOT, 'bench/tool-calling-upstream.ts')], cwd: ROOT });
  const http = options.servers.includes('http') ? await startChildServer({ name: 'mcp-http', args: ['--import', 'tsx', path.join(ROOT, 'bench/mcp-echo-server.ts')], cwd: ROOT }).catch(async (e) => {
    await model.stop();
    throw e;
  }) : undefined;
  const oauth = options.servers.includes('oauth')
    ? await startChildServer({ name: 'mcp-oauth', args: ['--import', 'tsx', path.join(ROOT, 'bench/mcp-oauth-echo-server.ts')], cwd: ROOT }).catch(async (e) => {
        await http?.stop();
        await model.stop();
        throw e;
      })
    : undefined;
  const oauthUrl = oauth && (await (await fetch(`${oauth.url}url`)).text());
  const rows: Row[] = [{ kind: { server: undefined, calls: 0 }, caller: 'herald', runs: [] }];
  for (const server of options.servers) {
    rows.push({ kind: { server, calls: 0 }, caller: 'herald', runs: [] });
    for (const calls of options.callsPerTurn) {
      rows.push({ kind: { server, calls }, caller: 'herald', runs: [] });
      if (hasBareClient(server)) rows.push({ kind: { server, calls }, caller: 'bare SDK client', runs: [] });
    }
  }
  let perf: PerfRecording | undefined;
  const herald = await startToolsHerald({
    agents: rows.filter((r) => r.caller === 'herald').map((r) => r.kind),
    model: model.url,
    httpServer: http?.url,
    oauthServer: oauthUrl,
    withStdio: options.servers.includes('stdio'),
    cpuProfileDir: options.cpuProfileDir,
  }).catch(async (e) => {
    await oauth?.stop();
    await http?.stop();
    await model.stop();
    throw e;
  });
  try {
    if (options.perfFile) perf = await PerfRecording.start(options.perfFile, [herald.pid]);
    const serverPid = (server: ServerKind | undefined) => (server === 'stdio' ? herald.stdioServerPid : server === 'http' ? http!.pid : server === 'oauth' ? oauth!.pid : undefined);
    const measure = async (row: Row, warmupSeconds: number, seconds: number) => {
      const { kind } = row;
      if (row.caller === 'herald') return measureHerald(herald, kind, { connections: options.connections, seconds, warmupSeconds, serverPid: serverPid(kind.server), profiling: Boolean(options.cpuProfileDir) });
      const server = kind.server === 'stdio' ? { command: EVERYTHING } : { url: http!.url, serverPid: http!.pid };
      return measureBare(script, { server, tool: 'echo', concurrency: options.connections, callsPerTurn: kind.calls, warmupSeconds, seconds });
    };
    // herald's code is compiled as it gets warm: every agent's turn once before anything is measured
    for (const row of rows.filter((r) => r.caller === 'herald')) await measure(row, 0, options.warmupSeconds);
    // the same echo called by an MCP client through herald's /mcp: herald is the server measured (its CPU per call)
    const throughMcp: Measurement[] = [];
    const viaMcp = (warmupSeconds: number, seconds: number) =>
      measureBare(script, { server: { url: `${herald.url}/mcp`, serverPid: herald.pid, headers: { authorization: `Bearer ${API_KEY}` } }, tool: `${SERVER_NAME.http}__echo`, concurrency: options.connections, callsPerTurn: 1, warmupSeconds, seconds });
    if (http) await viaMcp(0, options.warmupSeconds);
    for (let round = 0; round < options.rounds; round++) {
      // each round starts one step further along: no row always meets the machine as another left it
      for (let i = 0; i < rows.length; i++) {
        const row = rows[(i + round) % rows.length]!;
        row.runs.push(await measure(row, options.warmupSeconds, options.seconds));
      }
      if (http) throughMcp.push(await viaMcp(options.warmupSeconds, options.seconds));
    }
    const figures: ToolCallsFigures = { options, rows, throughMcp };
    if (oauth) figures.refreshes = await refreshesAfterExpiry(herald, oauth.url, options.connections);
    if (perf) {
      await perf.stop();
      const windows: PerfWindow[] = rows
        .filter((r) => r.caller === 'herald')
        .flatMap((r) => r.runs.map((run) => ({ endpoint: label(r.kind), server: 'herald', pid: herald.pid, ...run.window!, cpuMsPerRequest: run.cpuMsPerTurn })));
      figures.perfSplit = perf.split(windows);
    }
    return figures;
  } finally {
    await perf?.stop();
    await herald.stop();
    await oauth?.stop();
    await http?.stop();
    await model.stop();
  }
}

/** the signed-in server's access token expired (as after its lifetime), then `calls` turns of one call each at once */
async function refreshesAfterExpiry(herald: ChildServer, control: string, calls: number): Promise<NonNullable<ToolCallsFigures['refreshes']>> {
  const refreshed = async () => ((await (await fetch(`${control}stats`)).json()) as { grants: Record<string, number> }).grants.refresh_token ?? 0;
  const before = await refreshed();
  await fetch(`${control}expire`, { method: 'POST' });
  const statuses = await Promise.all(Array.from({ length: calls }, () => oneTurn(herald, { server: 'oauth', calls: 1 })));
  return { calls, refreshes: (await refreshed()) - before, failed: statuses.filter((s) => s !== 200).length };
}

const SERVER_LABEL: Record<ServerKind, string> = { stdio: 'stdio (server-everything)', http: 'Streamable HTTP (SDK), fixed header', oauth: 'Streamable HTTP (SDK), signed in (OAuth)' };
const label = (kind: AgentKind) => (kind.server ? `${SERVER_LABEL[kind.server]}, ${kind.calls || 'no'} calls` : 'no tools granted');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

/** herald's CPU per call against the bare client's, each round's and their median */
export interface PerCall {
  server: ServerKind;
  /** calls per turn, or the span of a slope (`1→4`) */
  calls: string;
  herald: number[];
  bare: number[];
}

/**
 * Per call, for each server: at N calls a turn, (turn with N − turn without) / N against the bare
 * client's at N; and with two or more N, the slope between the fewest and the most (what one
 * more call in the same turn costs, without the turn's second model request) against the bare
 * client's at the most. Each round's figures are taken together: they met the same machine.
 */
export function perCall({ options, rows }: ToolCallsFigures): PerCall[] {
  const runs = (server: ServerKind | undefined, calls: number, caller: Row['caller'] = 'herald') => rows.find((r) => r.kind.server === server && r.kind.calls === calls && r.caller === caller)!.runs;
  return options.servers.filter(hasBareClient).flatMap((server) => {
    const none = runs(server, 0);
    const out: PerCall[] = options.callsPerTurn.map((calls) => ({
      server,
      calls: String(calls),
      herald: runs(server, calls).map((r, i) => (r.cpuMsPerTurn - none[i]!.cpuMsPerTurn) / calls),
      bare: runs(server, calls, 'bare SDK client').map((r) => r.cpuMsPerCall!),
    }));
    const [fewest, most] = [Math.min(...options.callsPerTurn), Math.max(...options.callsPerTurn)];
    if (most > fewest) {
      const low = runs(server, fewest);
      out.push({
        server,
        calls: `${fewest}→${most}`,
        herald: runs(server, most).map((r, i) => (r.cpuMsPerTurn - low[i]!.cpuMsPerTurn) / (most - fewest)),
        bare: runs(server, most, 'bare SDK client').map((r) => r.cpuMsPerCall!),
      });
    }
    return out;
  });
}

export function renderToolCalls(figures: ToolCallsFigures): string {
  const of = (runs: Measurement[], pick: (r: Measurement) => number | undefined) => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined);
    return values.length ? median(values) : undefined;
  };
  const pair = (runs: Measurement[], a: (r: Measurement) => number | undefined, b: (r: Measurement) => number | undefined) =>
    of(runs, a) === undefined ? '' : `${ms(of(runs, a)!)} / ${ms(of(runs, b)!)}`;
  const table = formatTable(
    ['agent', 'caller', 'turns/s', 'calls/s', 'turn p50/p99 ms', 'call p50/p99 ms', 'CPU ms/turn', 'server CPU ms/call', 'peak RSS MB'],
    figures.rows.map(({ kind, caller, runs }) => [
      label(kind),
      caller,
      of(runs, (r) => r.turnsPerSecond)!,
      of(runs, (r) => r.callsPerSecond) || '',
      pair(runs, (r) => r.turnP50Ms, (r) => r.turnP99Ms),
      pair(runs, (r) => r.callP50Ms, (r) => r.callP99Ms),
      of(runs, (r) => r.cpuMsPerTurn)!.toFixed(3),
      of(runs, (r) => r.serverCpuMsPerCall)?.toFixed(3) ?? '',
      mb(of(runs, (r) => r.peakRss)!),
    ]),
  );
  const perCallTable = formatTable(
    ['server', 'calls/turn', "herald's CPU ms/call", "the bare client's", 'herald adds', 'rounds'],
    perCall(figures).map(({ server, calls, herald, bare }) => {
      const over = herald.map((h, i) => h - bare[i]!);
      return [SERVER_LABEL[server], calls, median(herald).toFixed(3), median(bare).toFixed(3), median(over).toFixed(3), over.map((o) => o.toFixed(3)).join(', ')];
    }),
  );
  // herald's CPU per call at N calls a turn: (turn with N − turn without) / N, each round's then their median
  const heraldPerCall = (server: ServerKind, calls: number) => {
    const at = (c: number) => figures.rows.find((r) => r.kind.server === server && r.kind.calls === c && r.caller === 'herald')!.runs;
    return median(at(calls).map((r, i) => (r.cpuMsPerTurn - at(0)[i]!.cpuMsPerTurn) / calls));
  };
  const signedIn = figures.options.servers.includes('oauth') && figures.options.servers.includes('http')
    ? `\n\nA signed-in server (OAuth: the bearer token from herald's store) against the same call with a fixed header, herald's CPU ms per call:\n${formatTable(
        ['calls/turn', 'fixed header', 'signed in', 'signed in adds'],
        figures.options.callsPerTurn.map((calls) => [String(calls), heraldPerCall('http', calls).toFixed(3), heraldPerCall('oauth', calls).toFixed(3), (heraldPerCall('oauth', calls) - heraldPerCall('http', calls)).toFixed(3)]),
      )}`
    : '';
  const refreshes = figures.refreshes
    ? `\n\nThe signed-in server's access token expired, then ${figures.refreshes.calls} turns of one call each at once: ${figures.refreshes.refreshes} token refresh${figures.refreshes.refreshes === 1 ? '' : 'es'} (1 is right), ${figures.refreshes.failed} turns failed.`
    : '';
  const bareHttp = figures.rows.find((r) => r.kind.server === 'http' && r.kind.calls === 1 && r.caller === 'bare SDK client')?.runs ?? [];
  const mcpTable = figures.throughMcp.length
    ? `\n\nA governed call through herald's /mcp (an SDK client calling ${SERVER_NAME.http}__echo, 1 call at a time per connection) against the same call straight to the server with the SDK (target: herald adds at most 0.5 ms):\n${formatTable(
        ['calls/s', 'call p50/p99 ms', "herald's CPU ms/call", "the bare client's", 'herald adds', 'rounds'],
        [
          (() => {
            const heraldCpu = figures.throughMcp.map((r) => r.serverCpuMsPerCall!);
            const over = heraldCpu.map((h, i) => h - (bareHttp[i]?.cpuMsPerCall ?? NaN));
            return [
              of(figures.throughMcp, (r) => r.callsPerSecond)!,
              pair(figures.throughMcp, (r) => r.callP50Ms, (r) => r.callP99Ms),
              median(heraldCpu).toFixed(3),
              bareHttp.length ? median(bareHttp.map((r) => r.cpuMsPerCall!)).toFixed(3) : '',
              median(over).toFixed(3),
              over.map((o) => o.toFixed(3)).join(', '),
            ];
          })(),
        ],
      )}`
    : '';
  const split = figures.perfSplit
    ? `\nWhere herald's CPU per turn ran, in µs, by perf's samples over each load and drain (JavaScript is the JIT's code; "CPU µs/req" is per turn):\n${renderPerfSplit(figures.perfSplit)}`
    : '';
  return (
    `${table}\n\nPer call (target: herald adds at most 0.5 ms). At N calls a turn: (herald's CPU per turn with N − without) / N, the second model request included; ` +
    `at "1→4": what one more call in the same turn costs herald, (turn with 4 − turn with 1) / 3; against the bare client's CPU per call:\n${perCallTable}${signedIn}${refreshes}${mcpTable}${split}`
  );
}

export async function run(options: ToolCallsBenchOptions = optionsFromEnv()): Promise<ToolCallsFigures> {
  console.log(
    `tools: chat completions whose model calls an MCP server's echo (${options.callsPerTurn.join(' or ')} calls a turn), ${options.connections} connections, ${options.seconds} s per measurement after ${options.warmupSeconds} s of warm-up, ${options.rounds} round(s); ` +
      `model, MCP servers, herald, load generator and bare client each in their own process (load average ${os.loadavg()[0]!.toFixed(1)})`,
  );
  const figures = await toolCallsBench(options);
  console.log(renderToolCalls(figures));
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
