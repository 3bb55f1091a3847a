import type { Hono } from 'hono';
import { HeraldError } from '../errors.js';
import type { ToolSignIns } from '../tools/mcp/oauth/tool-sign-ins.js';

/** the browser's page after a sign-in: no script, nothing from the request but the server's configured name */
const signedInPage = (server: string) =>
  `<!doctype html><meta charset="utf-8"><title>Signed in</title><body style="font:16px system-ui;margin:3rem"><h1>Signed in to ${escapeHtml(server)}</h1><p>herald connects to it now. You can close this window, or go back to the <a href="../console">console</a>.</p></body>`;

/**
 * The public half of signing in to MCP servers: the browser's return from an authorization
 * server (GET /oauth/callback, one use of its `state`, within 10 minutes) and herald's OAuth
 * client metadata document (GET /oauth/client-metadata.json), which an authorization server
 * fetches when herald's client id is that URL. No gateway token: neither holds a secret.
 */
export function oauthRoutes(app: Hono, signIns: ToolSignIns): void {
  app.get('/oauth/client-metadata.json', (c) => c.json(signIns.clientMetadataDocument(), 200, { 'cache-control': 'public, max-age=300' }));
  app.get('/oauth/callback', async (c) => {
    const state = c.req.query('state');
    const code = c.req.query('code');
    const error = c.req.query('error');
    if (!state) throw new HeraldError('HERALD_INVALID_FIELD', 'state: missing (start the sign-in again)', { param: 'state' });
    if (error) {
      // its state stays until it expires: a person may try the same link again
      throw new HeraldError('HERALD_SIGN_IN_FAILED', `the authorization server refused the sign-in: ${oauthErrorCode(error)}`);
    }
    if (!code) throw new HeraldError('HERALD_INVALID_FIELD', 'code: missing', { param: 'code' });
    const server = await signIns.finishSignIn(state, code);
    return c.html(signedInPage(server), 200, { 'cache-control': 'no-store' });
  });
}

/** RFC 6749 error codes are short ASCII words; anything else is not repeated */
const oauthErrorCode = (error: string) => (/^[a-z_]{1,64}$/.test(error) ? error : 'an error');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
