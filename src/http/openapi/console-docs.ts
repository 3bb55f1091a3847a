import { z } from 'zod';
import { operatorErrorSchema } from './common-schemas.js';
import { defineRoutes } from './route-doc.js';

const signedIn = z.object({ ok: z.literal(true), signedIn: z.literal(true), csrf: z.string().describe('Send as X-CSRF-Token on every state-changing /admin request.'), expiresAt: z.string(), traceLinkTemplate: z.string().nullable().describe('tracing.linkTemplate: the operator\'s tracing UI, a URL with {traceId}; null when none is configured.') });

/** The console's own routes: its files and its sign-in (the pages then use the admin API). */
export const consoleDocs = defineRoutes('root', [
  {
    method: 'get',
    path: '/',
    summary: 'Redirects a browser to the console',
    security: 'none',
    responses: { 302: { description: 'Location: /console.' } },
  },
  {
    method: 'get',
    path: '/console',
    summary: 'The operator console (HTML; sign in with the gateway token)',
    security: 'none',
    responses: { 200: { description: 'The console page.', schema: z.string(), contentType: 'text/html' } },
  },
  {
    method: 'get',
    path: '/console/assets/{file}',
    summary: "The console's scripts and styles (plain ES modules, no build step)",
    security: 'none',
    request: { params: z.object({ file: z.string() }) },
    responses: { 200: { description: 'The file.', schema: z.string(), contentType: 'text/javascript' }, 404: { description: 'No such file.', schema: operatorErrorSchema } },
  },
  {
    method: 'post',
    path: '/console/session',
    summary: 'Sign in: the gateway token in, an HttpOnly SameSite=Strict session cookie and a CSRF token out',
    security: 'none',
    request: { body: { schema: z.object({ token: z.string() }) } },
    responses: {
      200: { description: 'Signed in (Set-Cookie: herald_console).', schema: signedIn },
      401: { description: 'Wrong token.', schema: operatorErrorSchema },
      403: { description: 'A cross-origin sign-in.', schema: operatorErrorSchema },
      415: { description: 'Not JSON.', schema: operatorErrorSchema },
      429: { description: 'Too many failed attempts from this address.', schema: operatorErrorSchema },
    },
  },
  {
    method: 'get',
    path: '/console/session',
    summary: "The current console session's CSRF token (after a reload), or that there is none",
    security: 'none',
    // not signed in is an answer, not an error: a browser logs every 401 it fetches, and the sign-in page asks on every load
    responses: { 200: { description: 'Signed in, or `signedIn: false` (no session, or an expired one).', schema: z.union([signedIn, z.object({ ok: z.literal(true), signedIn: z.literal(false) })]) } },
  },
  {
    method: 'delete',
    path: '/console/session',
    summary: 'Sign out: the session is refused from now on, by every replica',
    security: 'none',
    responses: { 200: { description: 'Signed out.', schema: z.object({ ok: z.literal(true) }) }, 403: { description: 'Without its CSRF token.', schema: operatorErrorSchema } },
  },
]);
