import { isPlainNode, PLAIN_NODE_KEYS, type NodeKeys } from './plain-node.js';
import { isForbiddenKey } from './template-scope.js';

/**
 * The JSONata shapes mappings and presets are written in (field paths, literals, `&`, `=`, `!=`,
 * `<`…`>=`, `in`, `and`, `or`, `? :`, blocks with `$name := …` binds, `[…]` of literals, a few functions),
 * compiled to a synchronous evaluator. JSONata evaluates every step asynchronously: a GitHub
 * delivery's predicates and templates were ~650 promises. The evaluator follows jsonata 2.x's own
 * code (`evaluatePath`, `evaluateStep`, `lookup`, `fn.boolean`, `fn.string`, the functions below)
 * and gives up, returning FALLBACK, wherever JSONata would throw or where a value is one it does
 * not follow (an object compared, an array concatenated, a non-string given to a string function):
 * the caller then evaluates with JSONata itself, so results and errors stay JSONata's.
 * test/mappings/sync-expression.test.ts evaluates every preset's expressions on its fixtures both ways.
 */
export const FALLBACK = Symbol('fallback');

/** what an expression sees: the request's own values, read as over the sanitised copy (own fields, no forbidden keys) */
export interface SyncFrame {
  input: unknown;
  payload: unknown;
  headers: unknown;
  query: unknown;
  path: string;
  now: string;
}

/** `slots`: the values of the expression's `$name := …` binds, one slot per bind */
type Evaluator = (frame: SyncFrame, slots: unknown[]) => unknown;

/** the binds in reach while compiling, innermost block first: each name's slot */
interface Scope {
  names: Map<string, number>;
  parent?: Scope;
  slots: { count: number };
}

function resolve(scope: Scope | undefined, name: string): number | undefined {
  for (let at = scope; at; at = at.parent) {
    const slot = at.names.get(name);
    if (slot !== undefined) return slot;
  }
  return undefined;
}
/** a string, number, boolean, null or undefined; FALLBACK for anything else (an object or array left to JSONata) */
export type SyncExpression = (frame: SyncFrame) => unknown;

interface Node {
  type: string;
  value?: unknown;
  [key: string]: unknown;
}

const VARIABLES = new Set(['payload', 'headers', 'query', 'path', 'now']);
const NO_SLOTS: unknown[] = [];

/** the plain shapes, and the conditions, function calls, binds and unary operators this evaluator follows */
const KEYS: NodeKeys = {
  ...PLAIN_NODE_KEYS,
  condition: new Set(['type', 'position', 'condition', 'then', 'else']),
  function: new Set(['type', 'name', 'value', 'position', 'arguments', 'procedure']),
  bind: new Set(['type', 'value', 'position', 'lhs', 'rhs']),
  unary: new Set(['type', 'value', 'position', 'expressions']),
};

const plain = (node: unknown): node is Node => isPlainNode(node, KEYS);

/**
 * JSONata's sequences (its `createSequence`): arrays it made, flattened and unwrapped where a data
 * array is not. Marked by a property of their own (as JSONata marks them), not kept in a WeakSet:
 * a property costs less than a WeakSet's add at every path step, on a signed webhook's hot path.
 * A request's data never has the symbol, so a data array is never taken for one.
 */
const SEQUENCE = Symbol('sequence');
type Sequence = unknown[] & { [SEQUENCE]?: true };

function sequence(): unknown[] {
  const made: Sequence = [];
  made[SEQUENCE] = true;
  return made;
}

const isSequence = (value: unknown[]): boolean => (value as Sequence)[SEQUENCE] === true;

/** what evaluate() does to every result: an empty sequence is nothing, a singleton its one value */
function unwrap(value: unknown): unknown {
  if (Array.isArray(value) && isSequence(value)) return value.length === 0 ? undefined : value.length === 1 ? value[0] : value;
  return value;
}

/** what a path gives when no array is met on its way */
const ARRAY_MET = Symbol('array met');

/** jsonata's lookup, over the request's own fields as the sanitised copy has them */
function lookup(input: unknown, key: string): unknown {
  if (Array.isArray(input)) {
    const result = sequence();
    for (const item of input) {
      const found = lookup(item, key);
      if (found === undefined) continue;
      if (Array.isArray(found)) result.push(...found);
      else result.push(found);
    }
    return result;
  }
  if (input === null || typeof input !== 'object') return undefined;
  return isForbiddenKey(key) || !Object.hasOwn(input, key) ? undefined : (input as Record<string, unknown>)[key];
}

function countKeys(value: object): number {
  let n = 0;
  for (const key of Object.keys(value)) if (!isForbiddenKey(key)) n++;
  return n;
}

/** fn.boolean: undefined stays undefined */
function boolean(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.length === 1 ? boolean(value[0]) === true : value.some((item) => boolean(item) === true);
  if (typeof value === 'string') return value.length > 0;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (value !== null && typeof value === 'object') return countKeys(value) > 0;
  return value === true;
}

/** fn.string for what it turns into text without JSON (objects and arrays are left to JSONata) */
function text(value: unknown): string | typeof FALLBACK {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return FALLBACK;
    return Number.isInteger(value) ? JSON.stringify(value) : JSON.stringify(Number(value.toPrecision(15)));
  }
  if (typeof value === 'boolean' || value === null) return String(value);
  return FALLBACK;
}

const scalar = (value: unknown): boolean => value === null || (typeof value !== 'object' && typeof value !== 'function');

/** stringToArray: code points, as JSONata counts characters */
function characters(value: string): string[] | undefined {
  return /[\uD800-\uDFFF]/.test(value) ? Array.from(value) : undefined;
}

function substring(value: string, start: number, length: number | undefined): string {
  const points = characters(value);
  const size = points ? points.length : value.length;
  if (size + start < 0) start = 0;
  if (length !== undefined && length <= 0) return '';
  const end = length === undefined ? undefined : start >= 0 ? start + length : size + start + length;
  return points ? points.slice(start, end).join('') : value.slice(start, end);
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isInteger = (value: unknown): value is number => Number.isInteger(value);

/** one string argument, nothing in nothing out */
const onString = (op: (value: string) => unknown) => (args: unknown[]) => (args[0] === undefined ? undefined : isString(args[0]) ? op(args[0]) : FALLBACK);

function trim(value: string): string {
  let result = value.replace(/[ \t\n\r]+/gm, ' ');
  if (result.charAt(0) === ' ') result = result.substring(1);
  if (result.charAt(result.length - 1) === ' ') result = result.substring(0, result.length - 1);
  return result;
}

/** the built-in functions followed, by name: [fewest arguments, most, the function] */
const FUNCTIONS: Record<string, [number, number, (args: unknown[]) => unknown]> = {
  count: [1, 1, ([value]) => (value === undefined ? 0 : Array.isArray(value) ? value.length : 1)],
  exists: [1, 1, ([value]) => value !== undefined],
  type: [1, 1, ([value]) => (value === undefined ? undefined : value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value)],
  boolean: [1, 1, ([value]) => boolean(value)],
  not: [1, 1, ([value]) => (value === undefined ? undefined : !boolean(value))],
  string: [1, 1, ([value]) => (value === undefined ? undefined : text(value))],
  lowercase: [1, 1, onString((value) => value.toLowerCase())],
  uppercase: [1, 1, onString((value) => value.toUpperCase())],
  trim: [1, 1, onString(trim)],
  length: [1, 1, onString((value) => (characters(value) ?? value).length)],
  substring: [
    2,
    3,
    ([value, start, length], count = length === undefined ? 2 : 3) =>
      value === undefined ? undefined : isString(value) && isInteger(start) && (count === 2 || isInteger(length)) ? substring(value, start, length as number | undefined) : FALLBACK,
  ],
  substringBefore: [2, 2, ([value, chars]) => (value === undefined ? undefined : isString(value) && isString(chars) ? (value.includes(chars) ? value.slice(0, value.indexOf(chars)) : value) : FALLBACK)],
  substringAfter: [2, 2, ([value, chars]) => (value === undefined ? undefined : isString(value) && isString(chars) ? (value.includes(chars) ? value.slice(value.indexOf(chars) + chars.length) : value) : FALLBACK)],
  join: [
    1,
    2,
    ([values, separator]) => {
      if (values === undefined) return undefined;
      const strings = isString(values) ? [values] : values;
      if (!Array.isArray(strings) || strings.length === 0 || !strings.every(isString)) return FALLBACK;
      if (separator !== undefined && !isString(separator)) return FALLBACK;
      return strings.join(separator ?? '');
    },
  ],
};

function compilePath(node: Node, scope: Scope): Evaluator | undefined {
  const steps = node.steps as unknown[];
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every(plain)) return undefined;
  const [first] = steps as Node[];
  const rooted = first!.type === 'variable';
  if (rooted && (!VARIABLES.has(first!.value as string) || resolve(scope, first!.value as string) !== undefined)) return undefined;
  const names: string[] = [];
  for (const step of (rooted ? steps.slice(1) : steps) as Node[]) {
    if (step.type !== 'name' || typeof step.value !== 'string') return undefined;
    names.push(step.value);
  }
  const variable = rooted ? (first!.value as keyof SyncFrame) : undefined;
  const last = steps.length - 1;
  return (frame) => {
    // most paths walk one object's fields (payload.issue.title): each step one value, no sequence made
    const direct = walk(variable !== undefined ? frame[variable] : frame.input, names);
    if (direct !== ARRAY_MET) return direct;
    let input: unknown[] = variable !== undefined ? [frame.input] : Array.isArray(frame.input) ? frame.input : [frame.input];
    let result: unknown[] = [];
    for (let i = 0; i <= last; i++) {
      const found: unknown[] = [];
      for (const item of input) {
        const value = variable !== undefined && i === 0 ? frame[variable] : unwrap(lookup(item, names[variable !== undefined ? i - 1 : i]!));
        if (value !== undefined) found.push(value);
      }
      if (i === last && found.length === 1 && Array.isArray(found[0]) && !isSequence(found[0])) result = found[0];
      else {
        result = sequence();
        for (const value of found) {
          if (Array.isArray(value)) result.push(...value);
          else result.push(value);
        }
      }
      if (result.length === 0) break;
      input = result;
    }
    return unwrap(result);
  };
}

/**
 * A path's value where each step's input is one value: what the general walk gives, for the value
 * being the one item of each step's sequence (a singleton unwrapped; a data array at the end kept
 * whole). ARRAY_MET when a step's input is an array: the general walk flattens that.
 */
function walk(start: unknown, names: readonly string[]): unknown {
  let value = start;
  for (const name of names) {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return ARRAY_MET;
    value = lookup(value, name);
  }
  return value;
}

function compileBinary(op: string, lhs: Evaluator, rhs: Evaluator): Evaluator | undefined {
  if (op === 'and' || op === 'or') {
    return (frame, slots) => {
      const left = lhs(frame, slots);
      if (left === FALLBACK) return FALLBACK;
      if ((boolean(left) === true) === (op === 'or')) return op === 'or';
      const right = rhs(frame, slots);
      return right === FALLBACK ? FALLBACK : boolean(right) === true;
    };
  }
  const operate = OPERATORS[op];
  if (!operate) return undefined;
  return (frame, slots) => {
    const left = lhs(frame, slots);
    if (left === FALLBACK) return FALLBACK;
    const right = rhs(frame, slots);
    return right === FALLBACK ? FALLBACK : operate(left, right);
  };
}

function compare(left: unknown, right: unknown, op: (a: string | number, b: string | number) => boolean): unknown {
  const lt = typeof left;
  const rt = typeof right;
  if ((lt !== 'string' && lt !== 'number' && lt !== 'undefined') || (rt !== 'string' && rt !== 'number' && rt !== 'undefined')) return FALLBACK;
  if (left === undefined || right === undefined) return undefined;
  if (lt !== rt || Number.isNaN(left) || Number.isNaN(right)) return FALLBACK;
  return op(left as string | number, right as string | number);
}

/** equality of scalars is `===` (isDeepEqual); objects and arrays are left to JSONata */
function equal(left: unknown, right: unknown): boolean | typeof FALLBACK {
  if (left === undefined || right === undefined) return false;
  return scalar(left) && scalar(right) ? left === right : FALLBACK;
}

const OPERATORS: Record<string, (left: unknown, right: unknown) => unknown> = {
  '=': equal,
  '!=': (left, right) => {
    const same = equal(left, right);
    return same === FALLBACK ? FALLBACK : left === undefined || right === undefined ? false : !same;
  },
  '<': (left, right) => compare(left, right, (a, b) => a < b),
  '<=': (left, right) => compare(left, right, (a, b) => a <= b),
  '>': (left, right) => compare(left, right, (a, b) => a > b),
  '>=': (left, right) => compare(left, right, (a, b) => a >= b),
  '&': (left, right) => {
    const l = left === undefined ? '' : text(left);
    const r = right === undefined ? '' : text(right);
    return l === FALLBACK || r === FALLBACK ? FALLBACK : l + r;
  },
  in: (left, right) => {
    if (left === undefined || right === undefined) return false;
    return (Array.isArray(right) ? right : [right]).some((item) => item === left);
  },
};

function compileNode(node: unknown, scope: Scope): Evaluator | undefined {
  if (!plain(node)) return undefined;
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value': {
      const { value } = node;
      return scalar(value) ? () => value : undefined;
    }
    case 'variable': {
      const name = node.value as string;
      if (name === '') return (frame) => frame.input;
      const slot = resolve(scope, name);
      if (slot !== undefined) return (_frame, slots) => slots[slot];
      return VARIABLES.has(name) ? (frame) => frame[name as keyof SyncFrame] : undefined;
    }
    case 'path':
      return compilePath(node, scope);
    case 'binary': {
      const lhs = compileNode(node.lhs, scope);
      const rhs = compileNode(node.rhs, scope);
      return lhs && rhs ? compileBinary(node.value as string, lhs, rhs) : undefined;
    }
    case 'condition': {
      const test = compileNode(node.condition, scope);
      const then = compileNode(node.then, scope);
      const otherwise = node.else === undefined ? () => undefined : compileNode(node.else, scope);
      if (!test || !then || !otherwise) return undefined;
      return (frame, slots) => {
        const value = test(frame, slots);
        return value === FALLBACK ? FALLBACK : boolean(value) ? then(frame, slots) : otherwise(frame, slots);
      };
    }
    case 'block': {
      // a block is a frame of its own: its binds reach its later expressions, not past it
      const inner: Scope = { names: new Map(), parent: scope, slots: scope.slots };
      const parts: Evaluator[] = [];
      for (const expression of node.expressions as unknown[]) {
        const part = plain(expression) && expression.type === 'bind' ? compileBind(expression, inner) : compileNode(expression, inner);
        if (!part) return undefined;
        parts.push(part);
      }
      return (frame, slots) => {
        let value: unknown;
        for (const part of parts) if ((value = part(frame, slots)) === FALLBACK) return FALLBACK;
        return value;
      };
    }
    case 'unary': {
      // an array of literals (`action in ["opened", "closed"]`)
      const items = node.expressions as unknown[];
      if (node.value !== '[' || !Array.isArray(items) || !items.every((item) => plain(item) && ['string', 'number', 'value'].includes(item.type) && scalar(item.value))) return undefined;
      const values = items.map((item) => (item as Node).value);
      return () => values.slice();
    }
    case 'function': {
      const procedure = node.procedure;
      const args = (node.arguments as unknown[]).map((arg) => compileNode(arg, scope));
      if (node.name !== undefined || !plain(procedure) || procedure.type !== 'variable' || resolve(scope, procedure.value as string) !== undefined) return undefined;
      if (!args.every((arg): arg is Evaluator => arg !== undefined)) return undefined;
      const known = FUNCTIONS[procedure.value as string];
      if (!known || args.length < known[0] || args.length > known[1]) return undefined;
      const call = known[2];
      return (frame, slots) => {
        const values: unknown[] = [];
        for (const arg of args) {
          const value = arg(frame, slots);
          if (value === FALLBACK) return FALLBACK;
          values.push(value);
        }
        return call(values);
      };
    }
    default:
      return undefined;
  }
}

/** `$name := value` as a block's expression: the value, kept in the name's slot for what follows in the block */
function compileBind(node: Node, scope: Scope): Evaluator | undefined {
  const target = node.lhs as Node;
  const value = compileNode(node.rhs, scope);
  if (!value || !plain(target) || target.type !== 'variable' || typeof target.value !== 'string' || target.value === '') return undefined;
  const slot = scope.slots.count++;
  scope.names.set(target.value, slot);
  return (frame, slots) => (slots[slot] = value(frame, slots));
}

/**
 * The expression's synchronous evaluator, or undefined when its shape is not one followed. Its
 * value is a scalar or undefined; an object or array (which JSONata would hand back as its own
 * copy) is FALLBACK, as is any value JSONata would refuse.
 */
export function compileSyncExpression(ast: unknown): SyncExpression | undefined {
  const scope: Scope = { names: new Map(), slots: { count: 0 } };
  const evaluate = compileNode(ast, scope);
  if (!evaluate) return undefined;
  const size = scope.slots.count;
  return (frame) => {
    if (Array.isArray(frame.input)) return FALLBACK;
    const value = evaluate(frame, size === 0 ? NO_SLOTS : new Array<unknown>(size));
    return value !== null && typeof value === 'object' ? FALLBACK : value;
  };
}
