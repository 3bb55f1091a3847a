import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { jsonAnswer, operatorErrorSchema } from '../openapi/common-schemas.js';

const signedIn = z.object({ ok: z.literal(true), signedIn: z.literal(true), csrf: z.string().describe('Send as X-CSRF-Token on every state-changing /admin request.'), expiresAt: z.string(), traceLinkTemplate: z.string().nullable().describe('tracing.linkTemplate: the operator\'s tracing UI, a URL with {traceId}; null when none is configured.') });

/** The console's own routes as declared for the document: its files and its sign-in (the pages then use the admin API). */
export const consoleApi = {
  root: createRoute({
    method: 'get', path: '/', summary: 'Redirects a browser to the console',
    responses: { 302: { description: 'Location: /console.' } },
  }),
  page: createRoute({
    method: 'get', path: '/console', summary: 'The operator console (HTML; sign in with the gateway token)',
    responses: { 200: jsonAnswer(z.string(), 'The console page.', 'text/html') },
  }),
  assets: createRoute({
    method: 'get', path: '/console/assets/{file}', summary: "The console's scripts and styles (plain ES modules, no build step)",
    request: { params: z.object({ file: z.string() }) },
    responses: { 200: jsonAnswer(z.string(), 'The file.', 'text/javascript'), 404: jsonAnswer(operatorErrorSchema, 'No such file.') },
  }),
  signIn: createRoute({
    method: 'post', path: '/console/session', summary: 'Sign in: the gateway token in, an HttpOnly SameSite=Strict session cookie and a CSRF token out',
    request: { body: { content: { 'application/json': { schema: z.object({ token: z.string() }) } } } },
    responses: {
      200: jsonAnswer(signedIn, 'Signed in (Set-Cookie: herald_console).'),
      401: jsonAnswer(operatorErrorSchema, 'Wrong token.'),
      403: jsonAnswer(operatorErrorSchema, 'A cross-origin sign-in.'),
      415: jsonAnswer(operatorErrorSchema, 'Not JSON.'),
      429: jsonAnswer(operatorErrorSchema, 'Too many failed attempts from this address.'),
    },
  }),
  // not signed in is an answer, not an error: a browser logs every 401 it fetches, and the sign-in page asks on every load
  session: createRoute({
    method: 'get', path: '/console/session', summary: "The current console session's CSRF token (after a reload), or that there is none",
    responses: { 200: jsonAnswer(z.union([signedIn, z.object({ ok: z.literal(true), signedIn: z.literal(false) })]), 'Signed in, or `signedIn: false` (no session, or an expired one).') },
  }),
  signOut: createRoute({
    method: 'delete', path: '/console/session', summary: 'Sign out: the session is refused from now on, by every replica',
    responses: { 200: jsonAnswer(z.object({ ok: z.literal(true) }), 'Signed out.'), 403: jsonAnswer(operatorErrorSchema, 'Without its CSRF token.') },
  }),
};
