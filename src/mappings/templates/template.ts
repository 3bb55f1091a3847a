import { BoundedMemo } from '../../utils/bounded-memo.js';
import { compileExpression, describeJsonataError, NOT_READ, type CompiledExpression } from './jsonata-expression.js';
import type { TemplateScope } from './template-scope.js';

type Part = string | CompiledExpression;

/** A string with `{{ expr }}` holes, compiled once at load. */
export interface CompiledTemplate {
  source: string;
  /** true when the string holds at least one `{{ }}` */
  dynamic: boolean;
  /** `escape`: applied to each rendered hole (a respond body escaped for its content type) */
  render(scope: TemplateScope, escape?: (text: string) => string): Promise<string>;
  /** like render, but undefined when any hole renders empty: for a key, which is only as unique as each of its parts */
  renderComplete(scope: TemplateScope): Promise<string | undefined>;
}

export class TemplateSyntaxError extends Error {}

/** Missing renders as empty, strings as themselves, objects and arrays as JSON. */
export function renderValue(value: unknown): string {
  if (value === undefined || value === null || typeof value === 'function') return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Index of the `}}` closing the hole opened before `from`, skipping quoted text and nested braces. */
export function closingBraces(text: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '{') depth++;
    else if (ch === '}' && depth > 0) depth--;
    else if (ch === '}' && text[i + 1] === '}') return i;
  }
  return -1;
}

/**
 * Compiled templates by their text: mappings copied from one pattern repeat their templates
 * (`Issue #{{ issue.number }} {{ action }} ...` in each of a thousand), so each distinct text is
 * compiled once and shared, which is safe as a compiled template keeps no state of its own.
 * Emptied past a bound, so reloads of ever-changing templates do not accumulate them forever.
 */
const compiledTemplates = new BoundedMemo<string, CompiledTemplate>(20_000);

/** Parses and compiles every hole; a fault throws TemplateSyntaxError naming the expression. */
export function compileTemplate(source: string): CompiledTemplate {
  return compiledTemplates.get(source, compileNewTemplate);
}

function compileNewTemplate(source: string): CompiledTemplate {
  const parts: Part[] = [];
  let at = 0;
  for (;;) {
    const open = source.indexOf('{{', at);
    if (open < 0) break;
    const close = closingBraces(source, open + 2);
    if (close < 0) throw new TemplateSyntaxError(`unclosed "{{" at ${open}`);
    const expr = source.slice(open + 2, close).trim();
    if (!expr) throw new TemplateSyntaxError(`empty "{{ }}" at ${open}`);
    if (open > at) parts.push(source.slice(at, open));
    try {
      parts.push(compileExpression(expr));
    } catch (error) {
      throw new TemplateSyntaxError(`{{ ${expr} }}: ${describeJsonataError(error)}`);
    }
    at = close + 2;
  }
  if (at < source.length) parts.push(source.slice(at));
  return {
    source,
    dynamic: parts.some((p) => typeof p !== 'string'),
    async render(scope, escape) {
      let out = '';
      for (const part of parts) {
        if (typeof part === 'string') out += part;
        else {
          const read = part.read(scope);
          const text = renderValue(read === NOT_READ ? await part.evaluate(scope) : read);
          out += escape ? escape(text) : text;
        }
      }
      return out;
    },
    async renderComplete(scope) {
      let out = '';
      for (const part of parts) {
        if (typeof part === 'string') {
          out += part;
          continue;
        }
        const read = part.read(scope);
        const text = renderValue(read === NOT_READ ? await part.evaluate(scope) : read);
        if (!text.trim()) return undefined;
        out += text;
      }
      return out;
    },
  };
}
