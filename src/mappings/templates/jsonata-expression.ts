import { BoundedMemo } from '../../utils/bounded-memo.js';
import { createRequire } from 'node:module';
import type jsonataModule from 'jsonata';
import type { TemplateScope } from './template-scope.js';
import { equalityOf, fieldReference, MISSING, routeValue, UNKNOWN, type RouteKey } from '../routing/route-key.js';
import { compileSyncExpression, FALLBACK, type SyncExpression } from './sync-expression.js';

/**
 * An OpenClaw-style reference: `payload.a.b`, `headers.x-github-event`, `query.x`, `path`,
 * `now`, or a bare payload path like `messages[0].subject` (or `messages.0.subject`). The
 * first segment has no hyphen (so `a-b` stays JSONata subtraction); later segments may have one.
 */
const SIMPLE_REFERENCE = /^\$?[A-Za-z_]\w*(?:\.[A-Za-z_][\w-]*|\.\d+|\[\d+\])*$/;
const ROOTS: Record<string, string> = { payload: '$payload', headers: '$headers', query: '$query' };
const SCALARS: Record<string, string> = { path: '$path', now: '$now' };
const FORBIDDEN_SEGMENT = /(^|[.[])(__proto__|prototype|constructor)(?=$|[.[])/;
/** an unbound variable: evaluates to nothing, so a forbidden reference renders empty */
const NOTHING = '$forbiddenReference';

/** `headers.x-github-event` inside a larger expression: header names may hold hyphens, payload and query keys not */
const ROOTED_REFERENCE = /(headers)((?:\.[A-Za-z_][\w-]*|\.\d+|\[\d+\])+)|(payload|query)((?:\.[A-Za-z_]\w*|\.\d+|\[\d+\])*)/y;
/** what may not come right before a rooted reference (it would be part of a longer name), and right after it */
const NAME_BEFORE = /[\w$.`]/;
const NAME_AFTER = /[\w$(]/;

/**
 * JSONata for the segments after a root: hyphenated names quoted, OpenClaw's `.0` index as
 * `[0]`, and under `headers` the name lower-cased (headers are, so `headers.X-GitHub-Event` works).
 */
function quoteSegments(segments: string, root?: string): string {
  const rewritten = segments.replace(/\.(\d+)(?=$|[.[])/g, '[$1]');
  const named = root === 'headers' ? rewritten.replace(/^\.([A-Za-z_][\w-]*)/, (_whole, name: string) => `.${name.toLowerCase()}`) : rewritten;
  return named.replace(/\.([A-Za-z_][\w-]*)/g, (whole, name: string) => (name.includes('-') ? `.\`${name}\`` : whole));
}

/** Rewrites `payload.`, `headers.` and `query.` references in an expression, leaving string literals alone. */
function rewriteRootedReferences(text: string): string {
  // the text between rewrites is copied in slices, not character by character: a thousand
  // predicates built one character at a time were megabytes of garbage at start
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'" || ch === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    ROOTED_REFERENCE.lastIndex = i;
    const prev = text[i - 1];
    const match = prev !== undefined && NAME_BEFORE.test(prev) ? null : ROOTED_REFERENCE.exec(text);
    const next = match ? text[i + match[0].length] : undefined;
    if (match && !(next !== undefined && NAME_AFTER.test(next))) {
      const root = match[1] ?? match[3]!;
      out += `${text.slice(copied, i)}$${root}${quoteSegments(match[2] ?? match[4] ?? '', root)}`;
      i += match[0].length;
      copied = i;
      continue;
    }
    i++;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Rewrites OpenClaw-style references into JSONata; everything else is JSONata already. */
export function toJsonata(expr: string): string {
  const text = expr.trim();
  if (!SIMPLE_REFERENCE.test(text)) return rewriteRootedReferences(text);
  if (FORBIDDEN_SEGMENT.test(text)) return NOTHING;
  const [head, ...rest] = text.split(/(?=\.|\[)/) as [string, ...string[]];
  const root = rest.length === 0 && SCALARS[head] ? SCALARS[head] : (ROOTS[head] ?? head);
  return root + quoteSegments(rest.join(''), head);
}

export interface CompiledExpression {
  evaluate(scope: TemplateScope): Promise<unknown>;
  /**
   * The value without JSONata, or NOT_READ: a plain field reference (`issue.number`,
   * `headers.x-github-event`) that ends on a string, number or boolean over objects alone is read
   * from the scope's request as JSONata would read it from the sanitised copy (own fields only,
   * the forbidden keys absent); an expression of the shapes sync-expression.ts follows is
   * evaluated there, over the same request; anything else (an object or array as the value, a
   * value JSONata would refuse, a scope with no request) is left to evaluate.
   */
  read(scope: TemplateScope): unknown;
  /** an equality the expression needs to be true, read from its parse (see route-key.ts) */
  equality?: RouteKey;
}

export const NOT_READ = Symbol('not read');

/** what a checked text is known to be: an equality it needs, a plain field reference, its synchronous evaluator */
interface Known {
  equality?: RouteKey;
  reference?: Pick<RouteKey, 'root' | 'steps'>;
  sync?: SyncExpression;
}

function knownOf(ast: unknown): Known {
  const equality = equalityOf(ast);
  const reference = fieldReference(ast as Parameters<typeof fieldReference>[0]);
  const sync = reference ? undefined : compileSyncExpression(ast);
  return { ...(equality && { equality }), ...(reference && { reference }), ...(sync && { sync }) };
}

/**
 * JSONata texts by what is known of them. Each is parsed at load, the syntax check DESIGN asks
 * for at start, and the parse is then dropped: a parsed expression holds ~17 KB (its parser's
 * whole symbol table), 17 MB for a thousand `when` predicates of which a request evaluates those
 * of its path only. It is parsed again on its first evaluation and kept. Texts are shared by every
 * mapping that repeats them (a thousand mappings from one pattern differ in a path or a literal),
 * so each distinct text is checked once (with the equality it needs, for the engine's index) and kept parsed once. Evaluating a shared expression is
 * safe: evaluate() keeps its state in a frame per call (herald always passes bindings), as
 * requests to one mapping already share it. Both are emptied past a bound, so reloads of
 * ever-changing mappings do not accumulate texts forever.
 */
const checked = new Map<string, Known>();
const MAX_TEXTS = 20_000;
const parsed = new BoundedMemo<string, jsonataModule.Expression>(MAX_TEXTS);

// required with the first expression, not at start: the built-in /wake and /agent use none
const requireModule = createRequire(import.meta.url);
let jsonata: typeof jsonataModule | undefined;

function parse(text: string): jsonataModule.Expression {
  jsonata ??= requireModule('jsonata') as typeof jsonataModule;
  return jsonata(text);
}

function parsedOnce(text: string): jsonataModule.Expression {
  return parsed.get(text, parse);
}

/**
 * toJsonata by expression: a template hole repeated by a thousand mappings (`{{ issue.number }}`)
 * is rewritten once, not once per mapping. Emptied past the same bound.
 */
const rewritten = new BoundedMemo<string, string>(MAX_TEXTS);

function jsonataText(expr: string): string {
  return rewritten.get(expr, toJsonata);
}

function remember(text: string, known: Known): Known {
  if (checked.size >= MAX_TEXTS) checked.clear();
  checked.set(text, known);
  return known;
}

/**
 * Whether a text parses inside `( … )` exactly as it does alone: its brackets balance and its
 * strings and quoted names close, so it cannot reach past its parentheses, and it holds nothing
 * whose reading depends on what surrounds it (`/` starts a regex or a comment by context, `;`
 * separates a block's expressions, `%`, `@` and `#` look at the enclosing steps).
 */
function composable(text: string): boolean {
  if (text.trim() === '') return false;
  const closers: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return false;
      i = j;
    } else if (ch === '`') {
      const j = text.indexOf('`', i + 1);
      if (j < 0) return false;
      i = j;
    } else if (ch === '(') closers.push(')');
    else if (ch === '[') closers.push(']');
    else if (ch === '{') closers.push('}');
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (closers.pop() !== ch) return false;
    } else if (ch === '/' || ch === ';' || ch === '%' || ch === '@' || ch === '#') return false;
  }
  return closers.length === 0;
}

/** texts checked in one parse: the parser's set-up, most of the cost of a short predicate, is paid once per batch */
const BATCH = 200;

/**
 * Checks many expressions ahead of their compileExpression (a config's thousand `match.when`
 * predicates): those that can be are parsed together as the elements of one array, `[(a), (b), …]`,
 * each element being what the text alone parses to, in parentheses. A batch that fails to parse
 * leaves its texts to compileExpression, which parses each alone and reports the fault with its
 * own position. Returns how many texts were checked together.
 */
export function checkExpressions(exprs: Iterable<string>): number {
  const pending = new Set<string>();
  for (const expr of exprs) {
    const text = jsonataText(expr);
    if (!checked.has(text) && composable(text)) pending.add(text);
  }
  const texts = [...pending];
  let together = 0;
  for (let at = 0; at < texts.length; at += BATCH) {
    const batch = texts.slice(at, at + BATCH);
    let elements: unknown[] | undefined;
    try {
      elements = (parse(`[${batch.map((text) => `(${text})`).join(',\n')}]`).ast() as { expressions?: unknown[] }).expressions;
    } catch {
      continue;
    }
    if (elements?.length !== batch.length) continue;
    batch.forEach((text, i) => remember(text, knownOf(elements[i])));
    together += batch.length;
  }
  return together;
}

/** Checks the syntax now; throws the JSONata syntax error (with its position) for the caller to name. */
export function compileExpression(expr: string): CompiledExpression {
  const text = jsonataText(expr);
  const { equality, reference, sync } = checked.get(text) ?? remember(text, knownOf(parse(text).ast()));
  let expression: jsonataModule.Expression | undefined;
  const read = (scope: TemplateScope): unknown => {
    const { request } = scope;
    if (!request) return NOT_READ;
    if (sync && scope.now !== undefined) {
      const value = sync({ input: request.payload, payload: request.payload, headers: request.headers, query: request.query, path: request.path, now: scope.now });
      return value === FALLBACK ? NOT_READ : value;
    }
    if (!reference) return NOT_READ;
    const value = routeValue(request, reference.root, reference.steps);
    return value === MISSING ? undefined : value === UNKNOWN ? NOT_READ : value;
  };
  return {
    read,
    evaluate: (scope) => {
      const value = read(scope);
      return value === NOT_READ ? (expression ??= parsedOnce(text)).evaluate(scope.payload, scope.bindings) : Promise.resolve(value);
    },
    ...(equality && { equality }),
  };
}

/** A JSONata syntax error as one line: "Syntax error: ... (at 4)". */
export function describeJsonataError(error: unknown): string {
  const e = error as { message?: string; position?: number };
  return `${e.message ?? String(error)}${typeof e.position === 'number' ? ` (at ${e.position})` : ''}`;
}
