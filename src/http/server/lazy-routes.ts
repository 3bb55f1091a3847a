import { Hono, type Context, type ErrorHandler, type Next } from 'hono';
import { HonoRequest } from 'hono/request';
import type { Result } from 'hono/router';
import type { RouterRoute } from 'hono/types';

type Matched = Result<[Function, RouterRoute]>[0];
/** a route group as `app.route` takes it, whatever its env and schema types (an OpenAPIHono too) */
type Group = Parameters<Hono['route']>[1];

/** the groups mounted lazily on each app, so the routes an app serves can still be listed (the OpenAPI test does) */
const groupsOf = new WeakMap<Hono, LazyGroup[]>();

/**
 * Mounts at `path` a route group that is built on the first request under it, not at start: the
 * admin API declares ~100 routes with their zod schemas and OpenAPI registrations, which a start
 * would pay for although nothing asks for /admin until an operator does. Concurrent first
 * requests share one build; a failed build is thrown into the app's error mapper (a logged 500)
 * and tried again by the next request. Once built, a request gets exactly the handlers, in the
 * order, that `app.route(path, group)` would have given it, run in the app's own context.
 */
export function mountLazily(app: Hono, path: string, build: () => Promise<Group>, onError: ErrorHandler): void {
  const group = new LazyGroup(path, build);
  groupsOf.set(app, [...(groupsOf.get(app) ?? []), group]);
  // `/x/*` matches `/x` itself too, as the group's own `*` middleware did when mounted eagerly
  app.all(`${path}/*`, (c, next) => group.dispatch(c, next, onError));
}

/** every route an app serves, its lazily mounted groups built (and their catch-alls left out) */
export async function servedRoutes(app: Hono): Promise<RouterRoute[]> {
  const groups = groupsOf.get(app) ?? [];
  const built = await Promise.all(groups.map((g) => g.routes()));
  const catchAlls = new Set(groups.map((g) => `${g.path}/*`));
  return [...app.routes.filter((r) => !(r.method === 'ALL' && catchAlls.has(r.path))), ...built.flat()];
}

class LazyGroup {
  private built?: Promise<Hono>;

  constructor(
    readonly path: string,
    private readonly build: () => Promise<Group>,
  ) {}

  async routes(): Promise<RouterRoute[]> {
    return (await this.mounted()).routes;
  }

  async dispatch(c: Context, next: Next, onError: ErrorHandler): Promise<void> {
    const mounted = await this.mounted();
    // hono answers HEAD by dispatching GET
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const matchResult = mounted.router.match(method, c.req.path) as Result<[Function, RouterRoute]>;
    // the group's handlers read their own route's parameters (`c.req.param`, the validators):
    // the context gets a request over this match, keeping any body already read
    const req = new HonoRequest(c.req.raw, c.req.path, matchResult);
    req.bodyCache = c.req.bodyCache;
    Object.defineProperty(c, 'req', { value: req, configurable: true });
    await compose(matchResult[0], onError, c, next);
  }

  /** the group mounted at its path in an app of its own, as `app.route` mounts it: merged paths, its error handler kept */
  private mounted(): Promise<Hono> {
    this.built ??= this.build().then(
      (group) => new Hono().route(this.path, group),
      (error: unknown) => {
        this.built = undefined; // the next request tries again
        throw error;
      },
    );
    return this.built;
  }
}

/**
 * hono's own middleware composition (not exported by the package), so the group's handlers run
 * as if they were the app's: an error thrown in one is answered by the error mapper at that
 * level, and the last `next()` continues in the app (to its not-found answer).
 */
function compose(matched: Matched, onError: ErrorHandler, c: Context, next: Next): Promise<void> {
  let index = -1;
  const dispatch = async (i: number): Promise<void> => {
    if (i <= index) throw new Error('next() called multiple times');
    index = i;
    let res: Response | void | undefined;
    let isError = false;
    const entry = matched[i];
    if (!entry) {
      if (i === matched.length) await next();
      return;
    }
    const handler = entry[0][0] as (c: Context, next: Next) => unknown;
    c.req.routeIndex = i;
    try {
      res = (await handler(c, () => dispatch(i + 1))) as Response | void;
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      c.error = error;
      res = await onError(error, c);
      isError = true;
    }
    if (res && (c.finalized === false || isError)) c.res = res;
  };
  return dispatch(0);
}
