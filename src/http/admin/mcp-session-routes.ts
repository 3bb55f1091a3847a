import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { McpSessions } from '../mcp/mcp-sessions.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema } from './admin-schemas.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

export const mcpSessionSchema = z
  .object({
    id: z.string().openapi({ description: 'The MCP session id (Mcp-Session-Id); the owner id of its tool calls (ownerKind mcp).' }),
    key: z.string().openapi({ description: 'The API key the client connected with.' }),
    client: z
      .object({ name: z.string(), version: z.string() })
      .nullable()
      .openapi({ description: "The client's name and version from initialize (null until it sent notifications/initialized)." }),
    createdAt: z.string(),
    lastSeenAt: z.string().openapi({ description: 'Its last request.' }),
    calls: z.number().int().openapi({ description: 'tools/call requests it made.' }),
  })
  .openapi('McpSession');

/** GET /admin/mcp/sessions: the MCP clients connected to this process's /mcp (none while platform.mcp is off) */
export function registerMcpSessionRoutes(app: OpenAPIHono, deps: { sessions?: McpSessions }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/mcp/sessions',
      tags: ['mcp'],
      summary: "The MCP clients connected to this process's /mcp, newest first: their key, client name and version, last request and calls",
      security: bearerSecurity,
      responses: { 200: json(z.object({ data: z.array(mcpSessionSchema) }), 'The open sessions'), 401: json(errorSchema, 'Not signed in') },
    }),
    (c) => c.json({ data: deps.sessions?.view().reverse() ?? [] }, 200),
  );
}
