import fs from 'node:fs';
import path from 'node:path';
import { Hono, type Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { HeraldConfig } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { installedPath } from '../../utils/install-layout.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import { requesterOf } from '../auth/requester.js';
import { checkToken } from '../auth/token-auth.js';
import { SESSION_COOKIE, type ConsoleSessions } from './console-session.js';

/** the console's files: plain HTML, CSS and ES modules shipped in the repo, served as they are (no build step) */
const PUBLIC_DIR = installedPath('dist/console', 'src/http/console/public');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** nothing inline, nothing from elsewhere: a script injected into a page has nowhere to run from */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** every file of the folder, read once: a request names one of these or gets 404 (no path is ever joined from the URL) */
function loadFiles(): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of fs.readdirSync(PUBLIC_DIR, { recursive: true, encoding: 'utf8' })) {
    // one level of folders (assets/): a URL names `assets/<file>`, never a deeper path
    const full = path.join(PUBLIC_DIR, name);
    const type = TYPES[path.extname(name)];
    if (type && fs.statSync(full).isFile()) files.set(name.split(path.sep).join('/'), { body: fs.readFileSync(full), type });
  }
  return files;
}

export interface ConsoleRoutesDeps {
  config: HeraldConfig;
  limiter: FailedAuthLimiter;
  sessions?: ConsoleSessions;
}

/**
 * GET /console: the operator console (static files); POST /console/session signs in with the
 * gateway token and sets an HttpOnly SameSite=Strict cookie; the page then talks to /admin.
 */
export function consoleRoutes(deps: ConsoleRoutesDeps): Hono {
  const app = new Hono();
  const files = loadFiles();
  const hours = deps.config.gateway.console.sessionHours;

  app.use('*', async function consoleHeaders(c, next) {
    await next();
    c.header('Content-Security-Policy', CSP);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
  });

  const serve = (name: string) => {
    const file = files.get(name);
    if (!file) throw new HeraldError('HERALD_NOT_FOUND');
    return new Response(new Uint8Array(file.body), { headers: { 'Content-Type': file.type } });
  };
  app.get('/', () => serve('index.html'));
  app.get('/assets/:file', (c) => serve(`assets/${c.req.param('file')}`));

  /** a sign-in must come from this origin's page: a cross-site form cannot send JSON, and a browser's Origin must be ours */
  const sameOrigin = (c: Context) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(c.req.url).origin) throw new HeraldError('HERALD_FORBIDDEN', 'cross-origin sign-in refused');
    if (!c.req.header('content-type')?.startsWith('application/json')) throw new HeraldError('HERALD_UNSUPPORTED_MEDIA_TYPE', 'send the token as JSON');
  };

  app.post('/session', async (c) => {
    sameOrigin(c);
    if (!deps.sessions) throw new HeraldError('HERALD_UNAUTHORIZED', 'no gateway.auth.token is set: the console is closed');
    let token: unknown;
    try {
      token = ((await c.req.json()) as { token?: unknown }).token;
    } catch {
      throw new HeraldError('HERALD_INVALID_JSON');
    }
    checkToken(requesterOf(c), deps.limiter, typeof token === 'string' ? token : undefined, deps.config.gateway.auth.token);
    const session = deps.sessions.create();
    setCookie(c, SESSION_COOKIE, session.cookie, {
      httpOnly: true,
      sameSite: 'Strict',
      secure: new URL(c.req.url).protocol === 'https:',
      path: '/',
      maxAge: hours * 3600,
    });
    return c.json({ ok: true, signedIn: true, csrf: session.csrf, expiresAt: new Date(session.expiresAt).toISOString(), traceLinkTemplate: deps.config.tracing.linkTemplate ?? null });
  });

  app.get('/session', async (c) => {
    const session = await deps.sessions?.verify(c);
    // no session is an answer (the sign-in page asks on every load), never a 401 a browser logs
    if (!session) return c.json({ ok: true, signedIn: false });
    return c.json({ ok: true, signedIn: true, csrf: deps.sessions!.csrfOf(session.id), expiresAt: new Date(session.expiresAt).toISOString(), traceLinkTemplate: deps.config.tracing.linkTemplate ?? null });
  });

  app.delete('/session', async (c) => {
    const session = await deps.sessions?.verify(c);
    if (session) {
      if (!deps.sessions!.csrfValid(c, session.id)) throw new HeraldError('HERALD_CSRF');
      await deps.sessions!.revoke(session.id);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.json({ ok: true });
  });
  return app;
}
