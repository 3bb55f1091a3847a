import type { HeraldConfig } from '../../config/schema.js';
import { formatIssues } from '../../config/loading/format-issues.js';
import { compileMapping } from '../compile-mapping.js';
import type { CompiledMapping } from '../compiled-mapping.js';
import { mappingSchema } from '../../config/sections/mapping-schema.js';
import type { MappingContext } from '../mapping-context.js';
import { InProcessTransforms } from '../transforms/in-process-transforms.js';
import { TransformLoader } from '../transforms/transform-loader.js';

/** One fault of a draft, pointing where an editor can show it: the field, and the JSONata expression and position when there is one. */
export interface DraftFault {
  field: string;
  message: string;
  /** the `{{ expr }}` (or match.when) at fault */
  expression?: string;
  /** the offset inside that expression JSONata reported */
  position?: number;
}

/** `messageTemplate: template error in "...": {{ a + }}: Syntax error ... (at 4)` -> its parts */
function toFault(text: string): DraftFault {
  const colon = text.indexOf(':');
  const field = colon > 0 ? text.slice(0, colon) : 'mapping';
  const expression = /": \{\{ (.*?) \}\}: /.exec(text)?.[1] ?? /^match\.when: syntax error in ("(?:[^"\\]|\\.)*")/.exec(text)?.[1];
  const position = /\(at (\d+)\)$/.exec(text)?.[1];
  return {
    field,
    message: colon > 0 ? text.slice(colon + 1).trim() : text,
    ...(expression !== undefined && { expression: expression.startsWith('"') ? (JSON.parse(expression) as string) : expression }),
    ...(position !== undefined && { position: Number(position) }),
  };
}

/**
 * Compiles a mapping an operator is editing (console playground, backtests), exactly as a
 * configured one would be at load; faults come back as values to show, never thrown.
 */
export async function compileDraft(raw: unknown, config: HeraldConfig, ctx: MappingContext): Promise<{ mapping?: CompiledMapping; faults: DraftFault[] }> {
  const parsed = mappingSchema.safeParse(raw);
  if (!parsed.success) return { faults: formatIssues(parsed.error.issues).map(toFault) };
  const faults: string[] = [];
  const mapping = await compileMapping(
    { ...parsed.data, id: parsed.data.id ?? 'draft' },
    {
      ctx,
      transforms: new TransformLoader(config.hooks.transformsDir),
      runner: ctx.transformRunner ?? new InProcessTransforms(),
      transformTimeoutMs: config.hooks.transformTimeoutMs,
    },
    faults,
  );
  mapping.origin = 'draft';
  return faults.length ? { faults: faults.map(toFault) } : { mapping, faults: [] };
}
