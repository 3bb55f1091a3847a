import { HeraldError } from '../errors.js';
import type { CompiledMapping } from './compiled-mapping.js';
import { validateAction, type ActionContext } from './hook-action.js';
import type { HookRequest } from './hook-request.js';

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
    return {
      id: kind,
      path: kind,
      origin: 'built-in',
      matches: (request: HookRequest) => request.path === kind,
      async apply(request) {
        const body = request.payload;
        if (!body || typeof body !== 'object' || Array.isArray(body)) {
          throw new HeraldError('HERALD_BAD_REQUEST', 'body must be a JSON object');
        }
        return { type: 'action', action: validateAction(body as Record<string, unknown>, kind, context, kind) };
      },
    };
  };
  return [fixed('wake'), fixed('agent')];
}
