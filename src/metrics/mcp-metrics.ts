import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * herald as an MCP server in /metrics: the sessions open and the tools/call requests answered,
 * by API key. Label values are bounded by the keys an operator made and the three kinds of tool.
 */
export class McpMetrics {
  private readonly calls: Counter<'key' | 'kind' | 'outcome'>;

  constructor(registry: Registry, sessionsByKey: () => Map<string, number>) {
    this.calls = new Counter({
      name: 'herald_mcp_calls_total',
      help: 'tools/call requests answered at /mcp, by API key, kind (ask: an agent, search: search_documents, governed: a granted tool) and outcome (ok, error: an isError result).',
      labelNames: ['key', 'kind', 'outcome'],
      registers: [registry],
    });
    // set afresh at each scrape: a key whose sessions all closed leaves no stale series
    const sessions: Gauge<'key'> = new Gauge({
      name: 'herald_mcp_sessions',
      help: "MCP sessions open at this process's /mcp, by API key.",
      labelNames: ['key'],
      registers: [registry],
      collect() {
        sessions.reset();
        for (const [key, count] of sessionsByKey()) sessions.set({ key }, count);
      },
    });
  }

  called(key: string, kind: string, isError: boolean): void {
    this.calls.inc({ key, kind, outcome: isError ? 'error' : 'ok' });
  }
}
