import express from 'express';
import type { Context } from 'hono';
import { createOAuthMetadata, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { HeraldError } from '../../../errors.js';
import type { McpGrants } from '../../../accounts/mcp-grants.js';
import { AUTH_SERVER_METADATA_PATH, mcpResourceUrl } from '../protected-resource.js';
import { clientSecretRefusal } from './client-secret-check.js';
import { answerWith, oauthBody } from './express-bridge.js';
import { GrantsProvider } from './grants-provider.js';

/** origins a gateway is reached at: a handful in practice, bounded since the Host header is the client's to say */
const MAX_ORIGINS = 8;

interface OriginServer {
  provider: GrantsProvider;
  listener: express.Express;
  metadata: Record<string, unknown>;
}

/**
 * herald's OAuth authorization server for /mcp (platform.mcp.oauth), made of the MCP SDK's own
 * (`mcpAuthRouter`: registration, authorization, token, revocation, with their checks and rate
 * limits) over a provider backed by herald's grants. The issuer is the origin a request came to,
 * as the Protected Resource Metadata's resource is; one router per origin.
 */
export function authServer(grants: McpGrants): (c: Context) => Promise<Response> {
  const servers = new Map<string, OriginServer>();
  const serverOf = (origin: string): OriginServer => {
    let server = servers.get(origin);
    if (server) return server;
    const issuerUrl = new URL(origin);
    const provider = new GrantsProvider(grants, mcpResourceUrl(origin));
    let metadata: Record<string, unknown>;
    try {
      // the SDK accepts only https issuers, or loopback ones
      metadata = { ...createOAuthMetadata({ provider, issuerUrl }), client_id_metadata_document_supported: true };
    } catch (error) {
      throw new HeraldError('HERALD_FORBIDDEN', `herald's MCP authorization server is served over https or on a loopback address only (${(error as Error).message}): put herald behind https`);
    }
    const listener = express();
    listener.set('trust proxy', false);
    listener.use(mcpAuthRouter({ provider, issuerUrl, resourceName: 'herald' }));
    server = { provider, listener, metadata };
    if (servers.size >= MAX_ORIGINS) servers.clear();
    servers.set(origin, server);
    return server;
  };
  return async function authServer(c) {
    const server = serverOf(new URL(c.req.url).origin);
    if (c.req.path === AUTH_SERVER_METADATA_PATH) return c.json(server.metadata, 200, { 'cache-control': 'max-age=3600' });
    const body = await oauthBody(c);
    return (await clientSecretRefusal(grants, c, body)) ?? answerWith(server.listener, c, body);
  };
}
