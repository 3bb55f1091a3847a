import type { HookRequest } from './hook-request.js';

/** keys that never resolve in a template, a predicate or a path: no prototype walking from a payload */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * A copy of untrusted JSON made of prototype-less objects without the forbidden keys, so no
 * expression can reach `Object.prototype` or a constructor through it.
 */
export function sanitize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitize);
  if (value && typeof value === 'object') {
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [key, inner] of Object.entries(value)) {
      if (!FORBIDDEN_KEYS.has(key)) copy[key] = sanitize(inner);
    }
    return copy;
  }
  return value;
}

/** What a template or `match.when` sees: the payload as input, the rest as `$` variables. */
export interface TemplateScope {
  payload: unknown;
  bindings: { payload: unknown; headers: unknown; query: unknown; path: string; now: string };
}

export function templateScope(request: HookRequest, now = new Date()): TemplateScope {
  const payload = sanitize(request.payload);
  return {
    payload,
    bindings: { payload, headers: sanitize(request.headers), query: sanitize(request.query), path: request.path, now: now.toISOString() },
  };
}
