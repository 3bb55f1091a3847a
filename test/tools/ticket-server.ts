import { z } from 'zod';
import { startMcpHttpServer, type McpHttpServer } from './mcp-http-server.js';

/** one call of a tool as the server received it */
export interface Invocation {
  tool: string;
  id: string;
}

export interface TicketServer {
  /** the Streamable HTTP endpoint, for tools.mcpServers.<name>.url */
  url: string;
  /** every call the server received, in order, whatever became of its answer */
  invocations: Invocation[];
  /** the next call is held (it does not answer) until `release` is called */
  holdNext(): void;
  /** the held call answers */
  release(): void;
  /** the next call answers with a tool error (isError), as a ticket system that is briefly out of order */
  failNext(): void;
  close(): Promise<void>;
}

/**
 * A Streamable HTTP MCP server made with the SDK in the test process, as a ticket system: one
 * tool that writes (`close_ticket`, destructiveHint) and one that only reads (`lookup_ticket`,
 * readOnlyHint). It records each call it receives, across sessions (a herald started again
 * connects again), can hold a call in flight until the test lets it answer, fail the next one,
 * and take the port of one closed (`port`).
 */
export async function startTicketServer(options: { port?: number } = {}): Promise<TicketServer> {
  const invocations: Invocation[] = [];
  let held: Promise<void> | undefined;
  let releaseHeld: (() => void) | undefined;
  let failing = false;
  const answer = async (tool: string, id: string, text: string) => {
    invocations.push({ tool, id });
    const waiting = held;
    held = undefined;
    if (waiting) await waiting;
    if (failing) {
      failing = false;
      // a tool's failure is a result marked isError (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#error-handling)
      return { content: [{ type: 'text' as const, text: `the ticket system is out of order` }], isError: true };
    }
    return { content: [{ type: 'text' as const, text }] };
  };
  const mcp: McpHttpServer = await startMcpHttpServer((server) => {
    server.registerTool(
      'close_ticket',
      { description: 'Closes a ticket', inputSchema: { id: z.string() }, annotations: { readOnlyHint: false, destructiveHint: true } },
      async ({ id }) => answer('close_ticket', id, `closed ${id}`),
    );
    server.registerTool(
      'lookup_ticket',
      { description: 'Reads a ticket', inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
      async ({ id }) => answer('lookup_ticket', id, `ticket ${id} is open`),
    );
  }, options);
  return {
    url: mcp.url,
    invocations,
    holdNext() {
      held = new Promise((resolve) => (releaseHeld = resolve));
    },
    release() {
      releaseHeld?.();
    },
    failNext() {
      failing = true;
    },
    async close() {
      releaseHeld?.();
      await mcp.close();
    },
  };
}
