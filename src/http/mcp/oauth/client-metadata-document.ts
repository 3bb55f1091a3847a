import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidClientError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';

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
 * Why a client id that is a URL cannot name a metadata document, or undefined: the draft's
 * "Client Identifier" section (draft-ietf-oauth-client-id-metadata-document §3) has it use the
 * https scheme and contain a path, with no fragment and no credentials. Registered clients' ids
 * are UUIDs, so any other URL is a client meaning a metadata document, and is told why not.
 */
export function clientMetadataUrlFault(clientId: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(clientId)) return undefined;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return `client_id ${clientId} is not a valid URL`;
  }
  const cite = '(draft-ietf-oauth-client-id-metadata-document §3)';
  if (url.protocol !== 'https:') return `client_id ${clientId} is a URL but not https: a Client ID Metadata Document is fetched over https only ${cite}`;
  if (url.pathname === '/') return `client_id ${clientId} has no path: a Client ID Metadata Document URL names a document ${cite}`;
  if (url.hash || url.username || url.password) return `client_id ${clientId} has a fragment or credentials, which a Client ID Metadata Document URL must not ${cite}`;
  return undefined;
}

/**
 * The refusal of an authorization request whose redirect_uri the client's metadata document
 * does not list: the draft (§4, "Client Metadata", and its security considerations on redirect
 * URIs) has the server check it against the document's `redirect_uris`, since the document, not
 * the request, is what the client's owner published. Matched as the SDK matches a registered
 * client's (exactly, but any port on a loopback host, RFC 8252 §7.3); said here with the
 * document's URL, before the SDK's handler would answer only "Unregistered redirect_uri".
 */
export function unlistedRedirectUri(client: OAuthClientInformationFull, redirectUri: string | null): string | undefined {
  if (redirectUri === null || client.redirect_uris.some((listed) => redirectUriMatches(redirectUri, listed))) return undefined;
  return `redirect_uri ${redirectUri} is not among the redirect_uris of the client's metadata document at ${client.client_id} (draft-ietf-oauth-client-id-metadata-document §4)`;
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
  // the document's client_id must be its own URL, compared as strings (the draft's §4): a
  // document copied to another address, or naming another client, is not this client's
  const named = (document as { client_id?: unknown }).client_id;
  if (named !== url) throw new InvalidClientError(`the client's metadata document at ${url} names client_id ${JSON.stringify(named ?? null)}, not its own URL (draft-ietf-oauth-client-id-metadata-document §4)`);
  const client: OAuthClientInformationFull = { ...parsed.data, client_id: url, token_endpoint_auth_method: 'none' };
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(url, { client, until: now + CACHE_MS });
  return client;
}
