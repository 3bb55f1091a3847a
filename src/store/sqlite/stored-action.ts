import { BoundedMemo } from '../../utils/bounded-memo.js';
import { parseRunAction, runActionSchema, type RunAction } from '../contracts/run-action.js';

/**
 * A run's action as SQLite keeps it: without its message, which the run's `message` column holds
 * (a run's row is written three times, at its insert, claim and end: its message once is enough).
 * The record is whole again when read (parseRunAction fills the message in from the column).
 */
export function storedAction(action: Record<string, unknown>): string {
  const { message: _inColumn, ...kept } = action;
  return JSON.stringify(kept);
}

type KeptAction = Readonly<Omit<RunAction, 'message'>>;

/** a text's action, checked: what is kept of it (frozen, shared by every run of the text) and its text as stored */
interface CheckedAction {
  kept: KeptAction;
  stored: string;
}

/**
 * Actions by their text, each checked once: the runs of one mapping repeat one action but for
 * its message (a column of its own), so its parse and schema check are done once and shared,
 * on the way in (insert) as on the way out (claim, get, lists). null: a text that needs the
 * whole check with its run (an invalid one, or one stored before actions named their agent).
 * Emptied past a bound, as the templates' memo is.
 */
const checkedActions = new BoundedMemo<string, CheckedAction | null>(2_000);

function check(text: string): CheckedAction | null {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored) || 'message' in stored || !('agentId' in stored)) return null;
  const parsed = runActionSchema.safeParse({ ...stored, message: '' });
  if (!parsed.success) return null;
  const { message: _message, ...kept } = parsed.data;
  return { kept: deepFreeze(kept), stored: JSON.stringify(kept) };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** the action with its message, keys in the schema's order (as a parse gives them) */
function withMessage(kept: KeptAction, message: string): RunAction {
  return Object.assign({ kind: kept.kind, message }, kept) as RunAction;
}

/**
 * The last action inserted through the check, as kept: a mapping's runs come one after another
 * alike but for their message, and one that equals it is stored as it was, without making its text
 * and looking it up (an action equal to its kept form parses to it).
 */
let lastChecked: CheckedAction | undefined;

/**
 * The action to insert, checked (unknown fields dropped) and its text to store: what
 * `storedAction(runActionSchema.parse(action))` gives, parsed once per distinct action.
 * An invalid action throws the schema's error.
 */
export function actionToStore(action: RunAction): { action: KeptAction; text: string } {
  const last = lastChecked;
  const checked = typeof action.message !== 'string' ? null : last && sameJson(action, last.kept, 'message') ? last : checkedActions.get(storedAction(action), check);
  if (checked) {
    lastChecked = checked;
    return { action: checked.kept, text: checked.stored };
  }
  const parsed = runActionSchema.parse(action);
  return { action: parsed, text: storedAction(parsed) };
}

/**
 * Whether `value` stores as `kept` (a JSON value): the same plain objects and arrays, field by field,
 * an undefined field as none (JSON leaves it out), `skip` (a top-level field) left out.
 */
function sameJson(value: unknown, kept: unknown, skip?: string): boolean {
  if (value === kept) return true;
  if (typeof value !== 'object' || typeof kept !== 'object' || value === null || kept === null) return false;
  if (Array.isArray(value)) return Array.isArray(kept) && value.length === kept.length && value.every((v, i) => sameJson(v, kept[i]));
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || Array.isArray(kept)) return false;
  const keptFields = kept as Record<string, unknown>;
  let fields = 0;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || key === skip) continue;
    if (!Object.hasOwn(keptFields, key) || !sameJson(v, keptFields[key])) return false;
    fields++;
  }
  for (const key in keptFields) if (keptFields[key] !== undefined) fields--;
  return fields === 0;
}

/** A stored action read back with its run's message (parseRunAction's check, once per distinct text). */
export function storedRunAction(runId: string, text: string, row: { agentId: string; message: string }): RunAction {
  const checked = checkedActions.get(text, check);
  if (checked) return withMessage(checked.kept, row.message);
  return parseRunAction(runId, JSON.parse(text), row);
}
