import type { HeraldError } from '../errors.js';
import type { HookRequest } from './hook-request.js';

/** the steps of a mapping that can fail on a request (`auth`: its signature was refused, the cause says why) */
export const mappingStages = ['auth', 'schema', 'template', 'transform', 'respond', 'action'] as const;
export type MappingStage = (typeof mappingStages)[number];

/**
 * Where and why a mapping failed on a request, as its receipt records it: the stage, the mapping,
 * the cause (the error's message with the request's values taken out) and, for a transform, the
 * `file:line` inside the transforms folder that threw.
 */
export interface MappingFailure {
  stage: MappingStage | 'dispatch';
  mappingId: string;
  cause: string;
  at?: string;
  /** a `forEach` mapping that failed for some of its items: each of them (see for-each-failure.ts) */
  items?: ItemFailure[];
}

/** one item of a `forEach` mapping that became no run: its index in the payload's array, where and why */
export interface ItemFailure {
  index: number;
  /** a step of the mapping, or `dispatch` when its action was refused as it was dispatched (a rate limit) */
  stage: MappingStage | 'dispatch';
  cause: string;
  at?: string;
}

/** what stands in for a value of the request found in a cause */
export const REDACTED = '‹value›';
/** values shorter than this are left alone: a cause made of `‹value›` for every `id` or `ok` would say nothing */
const MIN_VALUE_LENGTH = 4;
const MAX_CAUSE_LENGTH = 300;
/** how much of a message is searched for values: a transform may throw a megabyte */
const MAX_SCANNED_LENGTH = 2_000;
/** enough leaves for any real payload; past it the cause is withheld rather than half-cleaned */
const MAX_LEAVES = 20_000;

const failures = new WeakMap<HeraldError, MappingFailure>();

/** the error, marked with where and why its mapping failed */
export function withFailure(error: HeraldError, failure: MappingFailure): HeraldError {
  failures.set(error, failure);
  return error;
}

export function mappingFailureOf(error: unknown): MappingFailure | undefined {
  return typeof error === 'object' && error !== null ? failures.get(error as HeraldError) : undefined;
}

/**
 * A message that may quote the request (a JSONata cast error quotes the value it choked on, a
 * transform throws what it likes) with every string and number of the payload, headers and query
 * of 4 characters or more taken out, case-insensitively, and `extra` values too (the value a
 * JSONata error names, which may be computed from the payload); cut to 300 characters (and only
 * the first 2,000 are searched, the rest dropped).
 */
export function redactedCause(message: string, request: Pick<HookRequest, 'payload' | 'headers' | 'query'>, extra: readonly unknown[] = []): string {
  const values = new Set<string>();
  const enough = collect([request.payload, request.headers, request.query, ...extra], values);
  if (!enough) return 'the cause is withheld (the request has too many values to check it against)';
  // a message cut short ends without its last word: it may be the start of a value
  let text = message.length > MAX_SCANNED_LENGTH ? message.slice(0, MAX_SCANNED_LENGTH).replace(/\S*$/, '') : message;
  // longest first: a value that contains a shorter one goes whole
  for (const value of [...values].sort((a, b) => b.length - a.length)) text = replaceAll(text, value);
  return text.length > MAX_CAUSE_LENGTH ? `${text.slice(0, MAX_CAUSE_LENGTH)}…` : text;
}

function collect(roots: readonly unknown[], into: Set<string>): boolean {
  const stack = [...roots];
  let seen = 0;
  while (stack.length) {
    const value = stack.pop();
    if (++seen > MAX_LEAVES) return false;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') {
      const text = String(value);
      if (text.length >= MIN_VALUE_LENGTH) into.add(text.toLowerCase());
      // a JSON-quoted rendering escapes quotes and newlines: taken out as it appears
      const quoted = JSON.stringify(text).slice(1, -1);
      if (quoted !== text && quoted.length >= MIN_VALUE_LENGTH) into.add(quoted.toLowerCase());
    } else if (value && typeof value === 'object') {
      for (const child of Object.values(value)) stack.push(child);
    }
  }
  return true;
}

function replaceAll(text: string, lowerValue: string): string {
  let lower = text.toLowerCase();
  // lower-casing keeps the length of almost every text; where it does not, match exactly
  if (lower.length !== text.length) return text.split(lowerValue).join(REDACTED);
  let at = lower.indexOf(lowerValue);
  while (at >= 0) {
    text = text.slice(0, at) + REDACTED + text.slice(at + lowerValue.length);
    lower = text.toLowerCase();
    at = lower.indexOf(lowerValue, at + REDACTED.length);
  }
  return text;
}
