import { compileExpression, type CompiledExpression } from '../templates/jsonata-expression.js';
import { trimSlashes, type HookRequest } from '../hook-request.js';
import type { Mapping } from '../../config/sections/mapping-schema.js';
import { templateScope } from '../templates/template-scope.js';
import type { RouteKey } from './route-key.js';

export type MatchRule = NonNullable<Mapping['match']>;

/** JSONata's truthiness ($boolean): empty strings, 0, empty arrays and null are false. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(isTruthy);
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'function') return false;
  return Boolean(value);
}

/** a compiled `match`, with the equality any request it takes meets (for the engine's index) when there is one */
export type MatchFunction = ((request: HookRequest) => Promise<boolean>) & { routeKey?: RouteKey };

/**
 * Compiles a mapping's `match`: every given condition must hold; none given matches every path.
 * A `when` that fails to evaluate on a payload is no match (the next mapping gets its chance).
 */
export function compileMatch(rule: MatchRule | undefined): MatchFunction {
  const path = rule?.path === undefined ? undefined : trimSlashes(rule.path);
  const source = rule?.source;
  const when: CompiledExpression | undefined = rule?.when === undefined ? undefined : compileExpression(rule.when);
  const routeKey: RouteKey | undefined = source !== undefined ? { root: 'payload', steps: ['source'], value: source } : when?.equality;
  return Object.assign(async function matches(request: HookRequest) {
    if (path !== undefined && request.path !== path) return false;
    if (source !== undefined) {
      const payload = request.payload;
      if (!payload || typeof payload !== 'object' || (payload as Record<string, unknown>).source !== source) return false;
    }
    if (when) {
      try {
        return isTruthy(await when.evaluate(templateScope(request)));
      } catch {
        return false;
      }
    }
    return true;
  }, routeKey && { routeKey });
}
