import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { ToolSignIns } from '../../tools/mcp/oauth/tool-sign-ins.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema } from './admin-schemas.js';
import { HeraldError } from '../../errors.js';

const nameParam = z.object({ name: z.string().min(1).max(64).openapi({ param: { name: 'name', in: 'path' }, description: 'The server, by its name under tools.mcpServers.' }) });

const authorizationSchema = z
  .object({
    authorizationUrl: z.string().openapi({ description: "The authorization server's page to open in a browser; it comes back to <gateway.publicUrl>/oauth/callback within 10 minutes, which connects the server." }),
  })
  .openapi('ToolServerAuthorization');

/** POST /admin/tools/servers/:name/authorize: a person's sign-in to an MCP server that asks for OAuth */
export function registerToolServerRoutes(app: OpenAPIHono, deps: { signIns?: ToolSignIns; logger?: Logger }): void {
  app.openapi(
    createRoute({
      method: 'post',
      path: '/tools/servers/{name}/authorize',
      tags: ['tools'],
      summary: 'Start signing in to an MCP server (OAuth 2.1 authorization code with PKCE)',
      security: bearerSecurity,
      request: { params: nameParam },
      responses: {
        200: { content: { 'application/json': { schema: authorizationSchema } }, description: 'The URL a person opens to sign in' },
        401: { content: { 'application/json': { schema: errorSchema } }, description: 'Not signed in' },
        404: { content: { 'application/json': { schema: errorSchema } }, description: 'No such server in tools.mcpServers' },
        409: { content: { 'application/json': { schema: errorSchema } }, description: 'The server takes no sign-in by a person (stdio, a fixed Authorization header, client credentials), or tools.oauth.encryptionKey is unset' },
        502: { content: { 'application/json': { schema: errorSchema } }, description: "The server's authorization server could not be found or refused" },
      },
    }),
    async (c) => {
      const { name } = c.req.valid('param');
      if (!deps.signIns) throw new HeraldError('HERALD_NOT_FOUND', `no MCP server "${name}" takes a sign-in here`);
      const answer = await deps.signIns.authorize(name);
      deps.logger?.info({ server: name }, 'tool server sign-in started');
      return c.json(answer, 200);
    },
  );
}
