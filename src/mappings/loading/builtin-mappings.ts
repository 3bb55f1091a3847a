import { HeraldError } from '../../errors.js';
import type { CompiledMapping } from '../compiled-mapping.js';
import { validateAction, type ActionContext } from '../hook-action.js';
import type { HookRequest } from '../hook-request.js';

/**
 * `/wake` and `/agent`: fixed mappings whose template is the body itself. They go through
 * the same engine, validation and dispatch as every mapped hook.
 */
export function builtinMappings(ctx: Omit<ActionContext, 'mappingId' | 'requiredMessage'>): CompiledMapping[] {
  const fixed = (kind: 'wake' | 'agent'): CompiledMapping => {
    // the same for every request: made once
    const context: ActionContext = {
      ...ctx,
      mappingId: kind,
      fieldSource: 'request',
      requiredMessage: (field) => `${field} is required (a non-blank string)`,
      // a request body can never turn the safety wrapper off (validateAction reads it from here, never from the body)
      allowUnsafeExternalContent: false,
    };
    const bodyOf = (request: HookRequest): Record<string, unknown> => {
      const body = request.payload;
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        throw new HeraldError('HERALD_BAD_REQUEST', 'body must be a JSON object');
      }
      return body as Record<string, unknown>;
    };
    const applyNow = (request: HookRequest) => ({ type: 'action' as const, action: validateAction(bodyOf(request), kind, context, kind) });
    return {
      id: kind,
      path: kind,
      origin: 'built-in',
      matches: (request: HookRequest) => request.path === kind,
      apply: async (request: HookRequest) => applyNow(request),
      // not async: a built-in's steps have nothing to wait for, and the intake awaits only a promise
      prepare(request: HookRequest) {
        if (kind === 'wake') return { pure: true as const, run: () => applyNow(request) };
        const wait = bodyOf(request).waitForCompletion;
        if (wait !== undefined && wait !== null && typeof wait !== 'boolean') {
          throw new HeraldError('HERALD_INVALID_FIELD', 'waitForCompletion must be a boolean', { param: 'waitForCompletion' });
        }
        return { ...(wait === true && { waitForCompletion: true }), pure: true as const, run: () => applyNow(request) };
      },
    };
  };
  return [fixed('wake'), fixed('agent')];
}
