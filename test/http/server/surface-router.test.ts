import { describe, expect, it } from 'vitest';
import type { Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';
import { SurfaceRouter } from '../../../src/http/server/surface-router.js';

/** the handlers a router gives a request, in order, each with its params (either result shape) */
function matched(router: Router<string>, method: string, path: string): [string, Record<string, string>][] {
  const [handlers, stash] = router.match(method, path) as unknown as [unknown, string[] | undefined];
  return (handlers as [string, Record<string, unknown>][]).map(([handler, params]) => [
    handler,
    Object.fromEntries(Object.entries(params).map(([name, value]) => [name, stash ? stash[value as number]! : (value as string)])),
  ]);
}

// the app's shapes: `*` middleware, the webhook surface (`/hooks` and under it), and the admin
// pair the fast router cannot hold (`/deliveries/retry` beside `/deliveries/:id/retry`)
const ROUTES: [string, string][] = [
  ['ALL', '*'],
  ['ALL', '/*'],
  ['GET', '/healthz'],
  ['ALL', '/hooks'],
  ['ALL', '/hooks/*'],
  ['ALL', '/hooksmith'],
  ['ALL', '/hoo*'],
  ['GET', '/admin/runs/:id'],
  ['POST', '/admin/deliveries/retry'],
  ['POST', '/admin/deliveries/:id/retry'],
  ['ALL', '/admin/*'],
  ['GET', '/:anything/status'],
  ['GET', '/'],
];

const PROBES: [string, string][] = [
  ['POST', '/hooks/agent'],
  ['POST', '/hooks/wake'],
  ['POST', '/hooks'],
  ['POST', '/hooks/'],
  ['POST', '/hooks/github/push'],
  ['GET', '/hooks/status'],
  ['POST', '/hooksmith'],
  ['GET', '/hooksmith'],
  ['GET', '/healthz'],
  ['GET', '/admin/runs/r1'],
  ['POST', '/admin/deliveries/retry'],
  ['POST', '/admin/deliveries/d1/retry'],
  ['GET', '/x/status'],
  ['GET', '/'],
  ['GET', '/nowhere'],
];

describe('SurfaceRouter', () => {
  it('gives every request the handlers and params one router for all routes gives it', () => {
    const surface = new SurfaceRouter<string>('/hooks');
    const one = new TrieRouter<string>();
    for (const [i, [method, path]] of ROUTES.entries()) {
      surface.add(method, path, `${i} ${method} ${path}`);
      one.add(method, path, `${i} ${method} ${path}`);
    }
    for (const [method, path] of PROBES) expect(matched(surface, method, path), `${method} ${path}`).toEqual(matched(one, method, path));
  });

  it('routes the webhook surface with the fast router even beside routes that need the trie', () => {
    const surface = new SurfaceRouter<string>('/hooks');
    const app: [string, string][] = [['ALL', '*'], ['ALL', '/hooks'], ['ALL', '/hooks/*'], ['POST', '/admin/deliveries/retry'], ['POST', '/admin/deliveries/:id/retry']];
    for (const [method, path] of app) surface.add(method, path, path);
    surface.match('POST', '/hooks/agent');
    surface.match('POST', '/admin/deliveries/retry');
    const halves = surface as unknown as { surface: Router<string>; rest: Router<string> };
    expect(halves.surface.name).toBe('SmartRouter + RegExpRouter');
    expect(halves.rest.name).toBe('SmartRouter + TrieRouter');
  });
});
