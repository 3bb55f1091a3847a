import { compileExpression, describeJsonataError } from '../../mappings/templates/jsonata-expression.js';
import type { HookRequest } from '../../mappings/hook-request.js';
import { closingBraces } from '../../mappings/templates/template.js';
import { templateScope } from '../../mappings/templates/template-scope.js';

/** Where a template failed on a request: the field, the `{{ expr }}` and the offset JSONata reported inside it. */
export interface TemplateFault {
  field: string;
  message: string;
  expression: string;
  position?: number;
}

/** the `{{ }}` holes of a template string, as written */
function holes(source: string): string[] {
  const found: string[] = [];
  for (let at = source.indexOf('{{'); at >= 0; at = source.indexOf('{{', at)) {
    const close = closingBraces(source, at + 2);
    if (close < 0) break;
    found.push(source.slice(at + 2, close).trim());
    at = close + 2;
  }
  return found;
}

/**
 * A template that fails at request time (a cast, an unknown function) fails the whole request
 * with one message; for the operator's dry run, each hole of each templated field is evaluated
 * alone over the same request to point at the one that failed, as a syntax error is pointed at.
 */
export async function locateTemplateFault(definition: Record<string, unknown> | undefined, request: HookRequest, now: Date): Promise<TemplateFault | undefined> {
  const scope = templateScope(request, now);
  for (const [field, source] of Object.entries(definition ?? {})) {
    if (field === 'id' || typeof source !== 'string' || !source.includes('{{')) continue;
    for (const expression of holes(source)) {
      try {
        await compileExpression(expression).evaluate(scope);
      } catch (error) {
        const position = (error as { position?: unknown }).position;
        return { field, message: describeJsonataError(error), expression, ...(typeof position === 'number' && { position }) };
      }
    }
  }
  return undefined;
}
