import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ToolCallStatus } from '../store/contracts/tool-calls-port.js';

/** how a tool call ended, as its record says */
export type ToolCallOutcome = Exclude<ToolCallStatus, 'waiting_approval' | 'running'>;

/** who made the call: an agent's model, or herald itself for a mapping's or a schedule's direct call */
export type ToolCallSource = 'agent' | 'mapping' | 'schedule' | 'mcp';

/** what the gauges read of each configured MCP server at a scrape */
export interface ToolServerGaugeSource {
  server: string;
  state: string;
  tools: number;
}

/**
 * Tool servers and tool calls in /metrics. Label values are bounded by the config: servers are
 * configured, tools are at most tools.maxToolsPerServer per server. A call is a network round
 * trip, so prom-client's own counter is cheap enough here.
 */
export class ToolMetrics {
  private readonly calls: Counter<'server' | 'tool' | 'outcome' | 'source'>;
  private readonly duration: Histogram<'server'>;

  constructor(registry: Registry, servers?: () => ToolServerGaugeSource[]) {
    this.calls = new Counter({
      name: 'herald_tool_calls_total',
      help: 'Tool calls finished, by server (herald for the built-ins), tool, outcome (succeeded, failed, timed_out, interrupted, denied, refused) and source (agent: a model asked; mapping, schedule: a direct call; mcp: a client of the /mcp endpoint).',
      labelNames: ['server', 'tool', 'outcome', 'source'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'herald_tool_call_duration_seconds',
      help: 'Time of executed tool calls (not of waits for approval), by server.',
      labelNames: ['server'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    });
    if (!servers) return;
    // set afresh at each scrape: a server removed by a reload leaves no stale series
    const up: Gauge<'server'> = new Gauge({
      name: 'herald_tool_server_up',
      help: 'Whether a configured MCP server is connected and its tools listed (1) or not (0: connecting, failed, needs_authorization, stopped).',
      labelNames: ['server'],
      registers: [registry],
      collect() {
        up.reset();
        for (const s of servers()) up.set({ server: s.server }, s.state === 'ready' ? 1 : 0);
      },
    });
    // a server waiting for a person is not a fault to page about like a failed one: its own series
    const waiting: Gauge<'server'> = new Gauge({
      name: 'herald_tool_server_needs_authorization',
      help: 'Whether a configured MCP server waits for a person to sign in (1: POST /admin/tools/servers/{name}/authorize, the console, herald tools authorize) or not (0).',
      labelNames: ['server'],
      registers: [registry],
      collect() {
        waiting.reset();
        for (const s of servers()) waiting.set({ server: s.server }, s.state === 'needs_authorization' ? 1 : 0);
      },
    });
    const tools: Gauge<'server'> = new Gauge({
      name: 'herald_tool_server_tools',
      help: 'Tools herald offers from each configured MCP server (at most tools.maxToolsPerServer).',
      labelNames: ['server'],
      registers: [registry],
      collect() {
        tools.reset();
        for (const s of servers()) tools.set({ server: s.server }, s.tools);
      },
    });
  }

  /** one call's end; `seconds` only for a call that was executed (undefined: refused or denied before it ran) */
  finished(server: string, tool: string, outcome: ToolCallOutcome, seconds?: number, source: ToolCallSource = 'agent'): void {
    this.calls.inc({ server, tool, outcome, source });
    if (seconds !== undefined) this.duration.observe({ server }, seconds);
  }
}
