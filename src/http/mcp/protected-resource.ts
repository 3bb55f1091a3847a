import type { Context, Handler } from 'hono';

/** where herald serves its Protected Resource Metadata for /mcp (RFC 9728 §3.1: the well-known name, then the resource's path) */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** the absolute URL of the metadata, on the address the request came to */
export const resourceMetadataUrl = (c: Context): string => `${new URL(c.req.url).origin}${RESOURCE_METADATA_PATH}`;

/**
 * RFC 9728 Protected Resource Metadata of /mcp: the resource and how a token is presented. herald's
 * tokens for /mcp are its platform API keys, given to a client by its operator; no authorization
 * server is named, so a client knows it needs a key rather than a sign-in flow.
 */
export function protectedResourceRoute(): Handler {
  return function protectedResource(c) {
    const origin = new URL(c.req.url).origin;
    c.header('Cache-Control', 'max-age=3600');
    return c.json({
      resource: `${origin}/mcp`,
      bearer_methods_supported: ['header'],
      resource_name: 'herald',
    });
  };
}
