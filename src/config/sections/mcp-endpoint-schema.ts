import { z } from 'zod';

/**
 * `platform.mcp`: herald as an MCP server at `/mcp` (docs/mcp-server.md). Its callers are the
 * platform's API keys, so the key's agents and `platform.apiKeys[].tools` decide what each sees.
 */
export const mcpEndpointSchema = z
  .object({
    enabled: z.boolean().default(false).describe('Serve `/mcp` (Streamable HTTP, MCP 2025-11-25) and its Protected Resource Metadata to clients holding a platform API key.'),
    allowedOrigins: z
      .array(z.string().min(1))
      .default([])
      .describe("Origins (scheme://host[:port]) a browser-made request to /mcp may come from besides the gateway's own address; any other Origin is refused with 403 (DNS rebinding). Requests without Origin (desktop and CLI clients) are not concerned."),
    maxSessionsPerKey: z.number().int().positive().max(10_000).default(16).describe('MCP sessions one API key may hold open in one herald process: a further initialize is answered 429 until one closes or idles out.'),
    maxSessions: z.number().int().positive().max(100_000).default(1000).describe('MCP sessions open in one herald process, all keys together: past it, 503 with Retry-After.'),
    sessionIdleMinutes: z.number().positive().max(10_080).default(30).describe('A session without a request (and with no call in flight) for this long is closed; its client starts a new one.'),
    maxBodyBytes: z.number().int().positive().max(64 * 1024 * 1024).default(4 * 1024 * 1024).describe('Largest JSON-RPC request body: 413 above, read no further.'),
    oauth: z
      .object({
        enabled: z.boolean().default(false).describe("herald's own OAuth authorization server for /mcp (for connector clients that can only sign in, such as ChatGPT's and Claude's): client registration, a person's consent on the console with the gateway token, tokens that carry one API key's grants."),
        accessTokenMinutes: z.number().int().positive().max(1440).default(60).describe('Life of an access token; the client refreshes it with its refresh token.'),
        refreshTokenDays: z.number().int().positive().max(365).default(30).describe('Life of a refresh token (each refresh gives a new one); past it, a person consents again.'),
      })
      .strict()
      .prefault({})
      .describe('OAuth for MCP clients (docs/mcp-server.md#connectors-through-oauth).'),
  })
  .strict();
export type McpEndpointConfig = z.output<typeof mcpEndpointSchema>;
