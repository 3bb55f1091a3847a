import type { Context, Handler } from 'hono';

/** where herald serves its Protected Resource Metadata for /mcp (RFC 9728 §3.1: the well-known name, then the resource's path) */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** herald's authorization server for /mcp (platform.mcp.oauth): its endpoints at the root, as the SDK's router places them and MCP clients look for them */
export const AUTH_SERVER_PATHS = ['/authorize', '/token', '/register', '/revoke'] as const;
export const AUTH_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** the absolute URL of the metadata, on the address the request came to */
export const resourceMetadataUrl = (c: Context): string => `${new URL(c.req.url).origin}${RESOURCE_METADATA_PATH}`;

/** /mcp as a resource (RFC 8707): what herald's access tokens are bound to */
export const mcpResourceUrl = (origin: string): string => `${origin}/mcp`;

/**
 * RFC 9728 Protected Resource Metadata of /mcp: the resource and how a token is presented. With
 * platform.mcp.oauth on, herald itself is its authorization server (the same origin); without,
 * none is named, so a client knows it needs an API key rather than a sign-in flow.
 */
export function protectedResourceRoute(options: { oauth: () => boolean }): Handler {
  return function protectedResource(c) {
    const origin = new URL(c.req.url).origin;
    c.header('Cache-Control', 'max-age=3600');
    return c.json({
      resource: mcpResourceUrl(origin),
      ...(options.oauth() && { authorization_servers: [origin] }),
      bearer_methods_supported: ['header'],
      resource_name: 'herald',
    });
  };
}
