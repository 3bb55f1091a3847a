import type { Context } from 'hono';
import { InvalidClientError, InvalidRequestError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { clientMetadataDocument, isClientMetadataUrl, unlistedRedirectUri } from './client-metadata-document.js';

/**
 * An authorization request (GET /authorize) of a client known by its metadata document whose
 * redirect_uri the document does not list: answered 400 invalid_request naming the document,
 * straight to the browser (never a redirect to an unlisted URI, RFC 6749 §4.1.2.1). Undefined
 * for any other request, which the SDK's handler takes as before.
 */
export async function cimdRedirectRefusal(c: Context): Promise<Response | undefined> {
  if (c.req.path !== '/authorize' || c.req.method !== 'GET') return undefined;
  const clientId = c.req.query('client_id');
  if (!clientId || !isClientMetadataUrl(clientId)) return undefined;
  try {
    const why = unlistedRedirectUri(await clientMetadataDocument(clientId), c.req.query('redirect_uri') ?? null);
    return why ? c.json(new InvalidRequestError(why).toResponseObject(), 400) : undefined;
  } catch (error) {
    return c.json((error instanceof OAuthError ? error : new InvalidClientError(String(error))).toResponseObject(), 400);
  }
}
