import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { recentMcpCalls } from '../../runtime/operator/mcp-calls.js';
import type { Store } from '../../store/port.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema } from './admin-schemas.js';
import { toolCallSchema, toolCallView } from './views/tool-call-view.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

export const mcpClientSchema = z
  .object({ name: z.string(), version: z.string(), key: z.string().openapi({ description: 'The API key it connected with.' }) })
  .openapi('McpClient', { description: "An MCP client as its initialize named it, and the API key it connected with." });

export const mcpCallSchema = toolCallSchema
  .extend({
    sessionId: z.string().openapi({ description: 'The MCP session that made the call (Mcp-Session-Id; GET /admin/mcp/sessions while it is open).' }),
    client: mcpClientSchema.nullable().openapi({ description: "The client behind the session (null when no longer known: it is kept 90 days after the session's start)." }),
  })
  .openapi('McpCall');

/** GET /admin/mcp/calls: the calls MCP clients made through /mcp, newest first, each with its client and key */
export function registerMcpCallRoutes(app: OpenAPIHono, deps: { store: Pick<Store, 'toolCalls' | 'state'> }): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/mcp/calls',
      tags: ['mcp'],
      summary: 'The tool calls MCP clients made through /mcp, newest first: each with its client (name and version from initialize) and its API key',
      security: bearerSecurity,
      request: { query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: 'How many (1 to 200).' }) }) },
      responses: { 200: json(z.object({ data: z.array(mcpCallSchema) }), 'The calls'), 400: json(errorSchema, 'A bad query'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => {
      const calls = await recentMcpCalls(deps.store, c.req.valid('query').limit);
      return c.json({ data: calls.map(({ call, client }) => ({ ...toolCallView(call), sessionId: call.ownerId, client })) }, 200);
    },
  );
}
