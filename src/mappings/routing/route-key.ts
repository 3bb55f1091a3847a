import type { HookRequest } from '../hook-request.js';
import { isPlainNode } from '../templates/plain-node.js';
import { isForbiddenKey } from '../templates/template-scope.js';

export type RouteValue = string | number | boolean;

/**
 * A condition every request a mapping takes meets: the value at `root` + `steps` equals `value`
 * (`match.source`, or an equality in `match.when` such as `type = "y"` or
 * `headers.x-kind = "z"`). The engine indexes mappings by it, so a request meets only the
 * mappings whose key its own value can satisfy; each of those still decides by its full `match`.
 */
export interface RouteKey {
  root: 'payload' | 'headers' | 'query';
  steps: readonly string[];
  value: RouteValue;
}

interface AstNode {
  type: string;
  value?: unknown;
  lhs?: AstNode;
  rhs?: AstNode;
  steps?: AstNode[];
  expressions?: AstNode[];
}

const plain = (node: AstNode | undefined): node is AstNode => isPlainNode(node);

function literal(node: AstNode | undefined): RouteValue | undefined {
  if (!plain(node)) return undefined;
  if (node.type === 'string' && typeof node.value === 'string') return node.value;
  if (node.type === 'number' && typeof node.value === 'number' && Number.isFinite(node.value)) return node.value;
  if (node.type === 'value' && typeof node.value === 'boolean') return node.value;
  return undefined;
}

const ROOTS = new Set(['payload', 'headers', 'query']);

/** `a.b`, `$payload.a.b`, `$headers.x`, `$query.x`: a root and at least one field name */
export function fieldReference(node: AstNode | undefined): Pick<RouteKey, 'root' | 'steps'> | undefined {
  if (!plain(node) || node.type !== 'path' || !node.steps?.length) return undefined;
  if (!node.steps.every(plain)) return undefined;
  const [first, ...rest] = node.steps;
  const rooted = first!.type === 'variable' && typeof first!.value === 'string' && ROOTS.has(first!.value);
  const names = rooted ? rest : node.steps;
  if (names.length === 0 || !names.every((step) => step.type === 'name' && typeof step.value === 'string' && step.value !== '')) return undefined;
  return { root: rooted ? (first!.value as RouteKey['root']) : 'payload', steps: names.map((step) => step.value as string) };
}

/**
 * The first equality between a field reference and a literal that the parsed predicate needs to
 * be true: the predicate itself, a parenthesised one, or a conjunct of a top-level `and` chain.
 */
export function equalityOf(ast: unknown): RouteKey | undefined {
  const node = ast as AstNode | undefined;
  if (!plain(node)) return undefined;
  if (node.type === 'block') return node.expressions?.length === 1 ? equalityOf(node.expressions[0]) : undefined;
  if (node.type !== 'binary') return undefined;
  if (node.value === 'and') return equalityOf(node.lhs) ?? equalityOf(node.rhs);
  if (node.value !== '=') return undefined;
  for (const [ref, lit] of [[node.lhs, node.rhs], [node.rhs, node.lhs]] as const) {
    const key = fieldReference(ref);
    const value = literal(lit);
    if (key && value !== undefined) return { ...key, value };
  }
  return undefined;
}

/** the request has no value there: no equality on it holds (JSONata's `=` is false on nothing) */
export const MISSING = Symbol('missing');
/** the value there is not a scalar JSONata compares as JavaScript does (an array, an object, null): evaluate */
export const UNKNOWN = Symbol('unknown');

/**
 * The request's value at a key's root and steps, read as a predicate over the sanitised copy
 * would read it: own fields only, the forbidden keys absent.
 */
export function routeValue(request: HookRequest, root: RouteKey['root'], steps: readonly string[]): RouteValue | typeof MISSING | typeof UNKNOWN {
  let value: unknown = root === 'payload' ? request.payload : root === 'headers' ? request.headers : request.query;
  for (const step of steps) {
    if (value === undefined) return MISSING;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return UNKNOWN;
    if (isForbiddenKey(step) || !Object.hasOwn(value, step)) return MISSING;
    value = (value as Record<string, unknown>)[step];
  }
  if (value === undefined) return MISSING;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : UNKNOWN;
}
