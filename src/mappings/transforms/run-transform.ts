import type { HookRequest } from '../hook-request.js';
import { isForbiddenKey, withoutForbiddenKeys } from '../templates/template-scope.js';
import type { LocatedTransform, TransformContext, TransformRunner } from './transform-runner.js';

/** What a transform asked for: skip the request, keep the templated action, or merge fields over it. */
export type TransformResult = { type: 'skip' } | { type: 'keep' } | { type: 'merge'; kind?: 'wake' | 'agent'; fields: Record<string, unknown> };

/** Calls a transform through its runner, within its time limit, and checks the shape of what it returned. */
export async function runTransform(
  runner: TransformRunner,
  module: LocatedTransform,
  request: HookRequest,
  mapping: Record<string, unknown>,
  timeoutMs: number,
): Promise<TransformResult> {
  const ctx: TransformContext = {
    // copies without __proto__, prototype and constructor keys: they never resolve, here either
    payload: withoutForbiddenKeys(request.payload),
    headers: withoutForbiddenKeys(request.headers) as Record<string, string>,
    query: withoutForbiddenKeys(request.query) as Record<string, string>,
    path: request.path,
    url: request.url,
    mapping,
  };
  const result = await runner.call(module, ctx, timeoutMs);
  if (result === null) return { type: 'skip' };
  if (result === undefined) return { type: 'keep' };
  if (typeof result !== 'object' || Array.isArray(result)) {
    throw new Error(`transform returned ${Array.isArray(result) ? 'an array' : typeof result}; expected an object, null or undefined`);
  }
  const { kind, ...rest } = result as Record<string, unknown>;
  const fields = Object.fromEntries(Object.entries(rest).filter(([key]) => !isForbiddenKey(key)));
  if (kind !== undefined && kind !== 'wake' && kind !== 'agent') throw new Error(`transform returned kind ${JSON.stringify(kind)}; expected "wake" or "agent"`);
  return { type: 'merge', kind: kind as 'wake' | 'agent' | undefined, fields };
}
