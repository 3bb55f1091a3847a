import type { HookRequest } from '../hook-request.js';

/** keys that never resolve in a template, a predicate or a path: no prototype walking from a payload */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * A copy of untrusted JSON made of prototype-less objects without the forbidden keys, so no
 * expression can reach `Object.prototype` or a constructor through it.
 */
export function sanitize(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sanitize);
  const source = value as Record<string, unknown>;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const key in source) {
    if (Object.hasOwn(source, key) && !FORBIDDEN_KEYS.has(key)) copy[key] = sanitize(source[key]);
  }
  return copy;
}

/**
 * A copy of untrusted JSON without the forbidden keys, made of ordinary objects: what a
 * transform gets, so even `Object.assign({}, ctx.payload)` cannot pick up a prototype from it.
 */
export function withoutForbiddenKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutForbiddenKeys);
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (!FORBIDDEN_KEYS.has(key)) copy[key] = withoutForbiddenKeys(inner);
    }
    return copy;
  }
  return value;
}

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/** What a template or `match.when` sees: the payload as input, the rest as `$` variables. */
export interface TemplateScope {
  payload: unknown;
  bindings: { payload: unknown; headers: unknown; query: unknown; path: string; now: string };
  /** the request itself, when the scope is all of it: a plain field reference reads it without the copy (jsonata-expression.ts) */
  request?: HookRequest;
  /** `$now`, with request */
  now?: string;
}

/**
 * A request's scope, its sanitised copies made on first use: a mapping whose templates are
 * plain field references (`{{ issue.number }}`) reads the request itself, so most requests
 * never copy their payload and headers.
 */
class RequestScope implements TemplateScope {
  #bindings: TemplateScope['bindings'] | undefined;

  constructor(
    readonly request: HookRequest,
    readonly now: string,
  ) {}

  get payload(): unknown {
    return this.bindings.payload;
  }

  get bindings(): TemplateScope['bindings'] {
    if (this.#bindings) return this.#bindings;
    const { request } = this;
    return (this.#bindings = { payload: sanitize(request.payload), headers: sanitize(request.headers), query: sanitize(request.query), path: request.path, now: this.now });
  }
}

/** one scope per request: every `match.when` and template of it sees the same copy and the same `$now` */
const scopes = new WeakMap<HookRequest, TemplateScope>();

export function templateScope(request: HookRequest, now?: Date): TemplateScope {
  const cached = now === undefined ? scopes.get(request) : undefined;
  if (cached) return cached;
  const scope = new RequestScope(request, (now ?? new Date()).toISOString());
  if (now === undefined) scopes.set(request, scope);
  return scope;
}
