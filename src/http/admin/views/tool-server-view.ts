import { z } from '@hono/zod-openapi';
import { isoString } from '../../../time/iso-time.js';
import type { ToolServerHealth, ToolServerState } from '../../../tools/mcp/server-health.js';

/** An MCP server's health as the overview shows it. Behind the gateway token, so unlike /readyz it names the last error. */
const states = ['connecting', 'ready', 'failed', 'needs_authorization', 'stopped'] as const satisfies readonly ToolServerState[];

export const toolServerSchema = z
  .object({
    server: z.string().openapi({ description: 'Its name under tools.mcpServers.' }),
    transport: z.enum(['stdio', 'http']),
    state: z.enum(states).openapi({ description: 'connecting (starting or reconnecting), ready, failed (down, tried again with backoff), needs_authorization (waits for a person to sign in: POST /admin/tools/servers/{name}/authorize; not tried again meanwhile), stopped (shut down or removed).' }),
    since: z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z', description: 'When it became ready; otherwise since when it has not been ready.' }),
    lastError: z.string().nullable().openapi({ description: "Why it last failed: the error's message only (never arguments, headers or env values)." }),
    tools: z.number().int().openapi({ description: 'The tools herald offers from it.' }),
    listed: z.number().int().nullable().openapi({ description: 'When it listed more than tools.maxToolsPerServer: the tools it listed (at least), of which `tools` are kept.' }),
    restarts: z.number().int().openapi({ description: 'Times its connection was made again after one failed or closed.' }),
  })
  .openapi('ToolServer');

export const toolServerView = (h: ToolServerHealth): z.infer<typeof toolServerSchema> => ({
  server: h.server,
  transport: h.transport,
  state: h.state,
  since: isoString(h.since),
  lastError: h.lastError ?? null,
  tools: h.tools,
  listed: h.listed ?? null,
  restarts: h.restarts,
});
