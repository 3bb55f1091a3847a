import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { isUnder } from '../request/request-surface.js';

/** hono's default: one regular expression per method when the routes allow it, a trie otherwise */
const defaultRouter = <T>(): Router<T> => new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });

/**
 * Routes the webhook surface (`prefix` and what lies under it) apart from every other route. One
 * router for the whole app cannot be hono's fast one: the admin API's `/deliveries/retry` beside
 * `/deliveries/:id/retry` is a pair its regular expression cannot hold, so every request, webhooks
 * included, would walk the trie. Each half keeps the order its routes were added in, and a route
 * that could match paths of both halves (`*` middleware) is in both, so a request gets exactly
 * the handlers one router would give it.
 */
export class SurfaceRouter<T> implements Router<T> {
  readonly name = 'SurfaceRouter';
  private readonly surface = defaultRouter<T>();
  private readonly rest = defaultRouter<T>();
  private readonly under: string;

  constructor(private readonly prefix: string) {
    this.under = `${prefix}/`;
  }

  add(method: string, path: string, handler: T): void {
    const lead = staticLead(path);
    const onSurface = lead === path ? this.isSurface(path) : this.under.startsWith(lead) || lead.startsWith(this.under);
    const elsewhere = lead === path ? !onSurface : !lead.startsWith(this.under);
    if (onSurface) this.surface.add(method, path, handler);
    if (elsewhere) this.rest.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return (this.isSurface(path) ? this.surface : this.rest).match(method, path);
  }

  /** hono's router is handed the path alone: the rule is request-surface.ts's, as for every other reader */
  private isSurface(path: string): boolean {
    return isUnder(this.prefix, path);
  }
}

/** a route path up to its first parameter or wildcard (all of it when it has none) */
function staticLead(path: string): string {
  const at = path.search(/[:*?{]/);
  return at < 0 ? path : path.slice(0, at);
}
