import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** a document larger than this is no client's metadata (draft-ietf-oauth-client-id-metadata-document §4: servers SHOULD limit it, 5 KB suggested) */
const MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 5_000;
/** a client's document is read again after this long (the draft lets servers cache it, honouring HTTP caching within reason) */
const CACHE_MS = 5 * 60_000;
const CACHE_SIZE = 100;
const cache = new Map<string, { client: OAuthClientInformationFull; until: number }>();

/** a client id that is the URL of its metadata document: https with a path (the draft's §3) */
export function isClientMetadataUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  try {
    return new URL(clientId).pathname !== '/';
  } catch {
    return false;
  }
}

/**
 * A Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document, MCP's
 * authorization spec 2025-11-25): the client id is an https URL whose JSON names the client and
 * its redirect URIs, and its `client_id` must be that URL. No secret: such a client is public.
 */
export async function clientMetadataDocument(url: string, now = Date.now()): Promise<OAuthClientInformationFull> {
  const cached = cache.get(url);
  if (cached && cached.until > now) return cached.client;
  let text: string;
  try {
    const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength > MAX_BYTES) throw new Error(`larger than ${MAX_BYTES} bytes`);
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    throw new InvalidClientError(`the client's metadata document at ${url} could not be read: ${(error as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new InvalidClientError(`the client's metadata document at ${url} is not JSON`);
  }
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) throw new InvalidClientError(`the client's metadata document at ${url} is invalid: ${parsed.error.message}`);
  if ((document as { client_id?: unknown }).client_id !== url) throw new InvalidClientError(`the client's metadata document at ${url} names another client_id`);
  const client: OAuthClientInformationFull = { ...parsed.data, client_id: url, token_endpoint_auth_method: 'none' };
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(url, { client, until: now + CACHE_MS });
  return client;
}
