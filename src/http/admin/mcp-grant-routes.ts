import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { McpGrants } from '../../accounts/mcp-grants.js';
import { HeraldError } from '../../errors.js';
import { isoString as iso } from '../../time/iso-time.js';
import { bearerSecurity } from './admin-app.js';
import { errorSchema } from './admin-schemas.js';

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

const authorizationSchema = z
  .object({
    id: z.string(),
    client: z.object({ id: z.string().openapi({ description: 'Its client_id: an id herald gave at registration, or the URL of its metadata document.' }), name: z.string() }),
    redirectUri: z.string().openapi({ description: 'Where the browser goes with the answer.' }),
    createdAt: z.string(),
  })
  .openapi('McpAuthorization');

export const mcpGrantSchema = z
  .object({
    id: z.string(),
    client: z.object({ id: z.string(), name: z.string() }),
    key: z.string().openapi({ description: 'The API key whose agents and tools the client receives.' }),
    resource: z.string().openapi({ description: "The tokens' audience: /mcp of this gateway." }),
    createdAt: z.string().openapi({ description: 'When a person consented.' }),
    refreshedAt: z.string().openapi({ description: 'Its last token refresh.' }),
    accessExpiresAt: z.string(),
    refreshExpiresAt: z.string(),
  })
  .openapi('McpGrant');

const idParam = (name: string) => z.object({ id: z.string().min(1).max(100).openapi({ param: { name, in: 'path' } }) });

export interface McpGrantRoutesDeps {
  /** undefined while platform.mcp.oauth is off: the routes answer 404 */
  grants: () => McpGrants | undefined;
  /** the names of the platform's API keys (the consent's choices) */
  keyNames: () => Promise<string[]>;
  logger?: Logger;
}

/**
 * herald's OAuth grants for MCP clients, as a person sees them on the console: an authorization
 * request waiting for consent (GET, then POST allow with a key or deny), and the grants given
 * (GET, DELETE revokes at once).
 */
export function registerMcpGrantRoutes(app: OpenAPIHono, deps: McpGrantRoutesDeps): void {
  const grants = () => {
    const grants = deps.grants();
    if (!grants) throw new HeraldError('HERALD_NOT_FOUND', 'platform.mcp.oauth is off');
    return grants;
  };
  app.openapi(
    createRoute({
      method: 'get',
      path: '/mcp/authorizations/{id}',
      tags: ['mcp'],
      summary: 'An MCP client asking for access through OAuth, waiting for a person (the console shows it to consent)',
      security: bearerSecurity,
      request: { params: idParam('id') },
      responses: { 200: json(authorizationSchema, 'The request'), 400: json(errorSchema, 'Unknown, answered or expired'), 401: json(errorSchema, 'Not signed in'), 404: json(errorSchema, 'platform.mcp.oauth is off') },
    }),
    async (c) => {
      const pending = await grants().pending(c.req.valid('param').id);
      return c.json({ id: pending.id, client: { id: pending.clientId, name: pending.clientName }, redirectUri: pending.redirectUri, createdAt: iso(pending.createdAt) }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/mcp/authorizations/{id}',
      tags: ['mcp'],
      summary: "A person's answer: allow with the API key whose grants the client receives, or deny; the browser goes on to redirectTo",
      security: bearerSecurity,
      request: {
        params: idParam('id'),
        body: { content: { 'application/json': { schema: z.object({ decision: z.enum(['allow', 'deny']), key: z.string().min(1).max(64).optional().openapi({ description: 'Required to allow: an API key name.' }) }) } }, required: true },
      },
      responses: {
        200: json(z.object({ redirectTo: z.string().openapi({ description: "The client's redirect URI with its code (or error=access_denied) and state." }) }), 'Answered'),
        400: json(errorSchema, 'No such key, or the request is unknown, answered or expired'),
        401: json(errorSchema, 'Not signed in'),
        404: json(errorSchema, 'platform.mcp.oauth is off'),
      },
    }),
    async (c) => {
      const { decision, key } = c.req.valid('json');
      const { id } = c.req.valid('param');
      if (decision === 'allow') {
        if (!key) throw new HeraldError('HERALD_INVALID_FIELD', 'key: name the API key whose grants the client receives', { param: 'key' });
        if (!(await deps.keyNames()).includes(key)) throw new HeraldError('HERALD_INVALID_FIELD', `key: no API key named "${key.slice(0, 64)}"`, { param: 'key' });
      }
      const answer = await grants().answer(id, decision === 'allow' ? key : undefined);
      deps.logger?.info({ authorization: id, decision, key: decision === 'allow' ? key : undefined }, 'an MCP client authorization answered on the console');
      return c.json(answer, 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/mcp/grants',
      tags: ['mcp'],
      summary: 'The MCP clients a person let in through OAuth, newest first: which key each holds, and its tokens\' lives',
      security: bearerSecurity,
      responses: { 200: json(z.object({ data: z.array(mcpGrantSchema) }), 'The grants'), 401: json(errorSchema, 'Not signed in') },
    }),
    async (c) => {
      const data = (await deps.grants()?.list()) ?? [];
      return c.json(
        {
          data: data.map((g) => ({
            id: g.id,
            client: { id: g.clientId, name: g.clientName },
            key: g.key,
            resource: g.resource,
            createdAt: iso(g.createdAt),
            refreshedAt: iso(g.refreshedAt),
            accessExpiresAt: iso(g.accessExpiresAt),
            refreshExpiresAt: iso(g.refreshExpiresAt),
          })),
        },
        200,
      );
    },
  );
  app.openapi(
    createRoute({
      method: 'delete',
      path: '/mcp/grants/{id}',
      tags: ['mcp'],
      summary: "Revoke a client's grant: its access and refresh tokens stop working at once (401 on its next request)",
      security: bearerSecurity,
      request: { params: idParam('id') },
      responses: { 200: json(z.object({ id: z.string(), revoked: z.literal(true) }), 'Revoked'), 401: json(errorSchema, 'Not signed in'), 404: json(errorSchema, 'No such grant') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      if (!(await grants().revoke(id))) throw new HeraldError('HERALD_NOT_FOUND', `no MCP client grant "${id.slice(0, 100)}"`);
      deps.logger?.info({ grant: id }, 'an MCP client grant revoked');
      return c.json({ id, revoked: true as const }, 200);
    },
  );
}
