import type { Context } from 'hono';
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { ClientSecretCheck, McpGrants } from '../../../accounts/mcp-grants.js';
import { isClientMetadataUrl } from './client-metadata-document.js';

const messages: Record<Exclude<ClientSecretCheck, 'ok' | 'public'>, string> = {
  unknown: 'Invalid client_id',
  missing: 'Client secret is required',
  wrong: 'Invalid client_secret',
  expired: 'Client secret has expired',
};

/** the endpoints where a client authenticates (RFC 6749 §2.3.1, client_secret_post) */
const AUTHENTICATED_PATHS = new Set(['/token', '/revoke']);

/**
 * Client authentication at the token and revocation endpoints, before the SDK's handlers: the
 * SDK compares a stored plain secret with `!==`, while herald keeps only a secret's SHA-256
 * (McpGrants.checkClientSecret, constant-time). The clients store hands the SDK registrations
 * without their secret, so its own check passes them through and this one is the only one.
 * Undefined when the request may go on; else the refusal as the SDK's would be (400
 * invalid_client, RFC 6749 §5.2).
 */
export async function clientSecretRefusal(grants: McpGrants, c: Context, body: Uint8Array | undefined): Promise<Response | undefined> {
  if (c.req.method !== 'POST' || !AUTHENTICATED_PATHS.has(c.req.path) || !body) return undefined;
  if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined;
  const form = new URLSearchParams(new TextDecoder().decode(body));
  const clientId = form.get('client_id');
  // without a client_id the SDK's own parsing answers invalid_request; a CIMD client is public
  if (clientId === null || isClientMetadataUrl(clientId)) return undefined;
  const found = await grants.checkClientSecret(clientId, form.get('client_secret') ?? undefined);
  if (found === 'ok' || found === 'public') return undefined;
  return c.json(new InvalidClientError(messages[found]).toResponseObject(), 400);
}
