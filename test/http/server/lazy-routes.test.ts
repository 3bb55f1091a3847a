import { Hono } from 'hono';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { HeraldError } from '../../../src/errors.js';
import { errorHandler, errorResponse } from '../../../src/http/error-handler.js';
import { mountLazily, servedRoutes } from '../../../src/http/server/lazy-routes.js';

/** an app as createApp assembles one: a middleware before everything, the one error mapper, a JSON 404 */
function appWith(build: () => Promise<Hono>) {
  const lines: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
  const app = new Hono();
  const onError = errorHandler(logger);
  app.use('*', async (c, next) => {
    await next();
    c.header('x-outer', 'after');
  });
  app.onError(onError);
  app.notFound((c) => errorResponse(c, new HeraldError('HERALD_NOT_FOUND')));
  mountLazily(app, '/group', build, onError);
  return { app, lines };
}

/** a group with its own middleware, a parameter and a failing route */
function group(): Hono {
  const g = new Hono();
  g.use('*', async (c, next) => {
    c.header('x-group', 'before');
    await next();
  });
  g.get('/', (c) => c.json({ at: 'root' }));
  g.get('/items/:id', (c) => c.json({ id: c.req.param('id'), path: c.req.routePath }));
  g.post('/fail', () => {
    throw new HeraldError('HERALD_FORBIDDEN', 'no');
  });
  return g;
}

describe('a route group mounted lazily', () => {
  it('answers as if mounted with app.route: its middleware, parameters, route paths, errors, HEAD and the app’s 404', async () => {
    const { app } = appWith(async () => group());
    const root = await app.request('/group');
    expect(await root.json()).toEqual({ at: 'root' });
    expect([root.headers.get('x-group'), root.headers.get('x-outer')]).toEqual(['before', 'after']);
    expect(await (await app.request('/group/items/42')).json()).toEqual({ id: '42', path: '/group/items/:id' });
    const failed = await app.request('/group/fail', { method: 'POST' });
    expect([failed.status, await failed.json(), failed.headers.get('x-outer')]).toEqual([403, { ok: false, error: 'no' }, 'after']);
    const head = await app.request('/group/items/1', { method: 'HEAD' });
    expect([head.status, head.headers.get('x-group')]).toEqual([200, 'before']);
    const missing = await app.request('/group/nothing');
    expect([missing.status, missing.headers.get('x-group')]).toEqual([404, 'before']);
    expect((await servedRoutes(app)).map((r) => `${r.method} ${r.path}`)).toEqual(['ALL /*', 'ALL /group/*', 'GET /group', 'GET /group/items/:id', 'POST /group/fail']);
  });

  it('is built once, by the first requests together, and not before', async () => {
    let builds = 0;
    const { app } = appWith(async () => {
      builds++;
      await new Promise((r) => setTimeout(r, 10));
      return group();
    });
    expect(builds).toBe(0);
    const answers = await Promise.all([app.request('/group'), app.request('/group/items/1'), app.request('/group')]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await app.request('/group/items/2');
    expect(builds).toBe(1);
  });

  it('answers a failed build with a logged 500 from the error mapper, and builds again on the next request', async () => {
    let builds = 0;
    const { app, lines } = appWith(async () => {
      if (++builds === 1) throw new Error('module failed to load');
      return group();
    });
    const failed = await app.request('/group/items/1');
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as { ok: boolean }).ok).toBe(false);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, msg: 'unhandled error', path: '/group/items/1' });
    expect(await (await app.request('/group/items/1')).json()).toMatchObject({ id: '1' });
    expect(builds).toBe(2);
  });
});
