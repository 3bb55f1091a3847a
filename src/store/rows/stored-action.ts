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

/** a text's action, checked: what is kept of it and its text as stored; `shape`: the checked action it was made from */
interface CheckedAction {
  kept: KeptAction;
  stored: string;
  shape: CheckedAction;
}

/**
 * The fields a mapping's runs differ in besides their message: a preset's run is named and
 * sessioned after its issue (`GitHub acme/app#12`, `hook:github:acme/app:issue:12`). Both are
 * plain strings, so an action is checked once per SHAPE (these fields blanked), each run's
 * values set into the checked shape, where a check per distinct text would check every run.
 */
const PER_RUN = ['name', 'sessionKey'] as const;

/**
 * Shapes by their text, each checked once (its parse and schema check), shared by every run of
 * the mapping, on the way in (insert) as on the way out (claim, get, lists). null: a text that
 * needs the whole check with its run (an invalid one, or one stored before actions named their
 * agent). Emptied past a bound, as the templates' memo is.
 */
const checkedShapes = new BoundedMemo<string, CheckedAction | null>(2_000);

/** whole texts already seen (a run inserted here, then claimed and read back): no parse at all */
const checkedActions = new BoundedMemo<string, CheckedAction | null>(2_000);

/** the stored text's action, its per-run fields set into its checked shape; null as for checkedShapes */
function check(text: string): CheckedAction | null {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return null;
  }
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored) || 'message' in stored || !('agentId' in stored)) return null;
  const fields = stored as Record<string, unknown>;
  if (!PER_RUN.every((field) => fields[field] === undefined || typeof fields[field] === 'string')) return checkShape(text);
  const shape = checkedShapes.get(JSON.stringify(blanked(fields)), checkShape);
  return shape && forRun(shape, fields);
}

/** the action with its per-run fields blanked (present ones as '', absent ones left out) */
function blanked(action: Record<string, unknown>): Record<string, unknown> {
  const shape = { ...action };
  for (const field of PER_RUN) if (shape[field] !== undefined) shape[field] = '';
  return shape;
}

/** a shape's text checked whole: parse and schema */
function checkShape(text: string): CheckedAction | null {
  const parsed = runActionSchema.safeParse({ ...(JSON.parse(text) as object), message: '' });
  if (!parsed.success) return null;
  const { message: _message, ...kept } = parsed.data;
  const checked = { kept: deepFreeze(kept), stored: JSON.stringify(kept) } as CheckedAction;
  checked.shape = checked;
  return checked;
}

/** a run's action: its shape's, with the run's own per-run fields (set in place: the shape's key order stays) */
function forRun(shape: CheckedAction, action: Partial<Record<(typeof PER_RUN)[number], unknown>>): CheckedAction {
  const kept = { ...shape.kept } as Record<string, unknown>;
  for (const field of PER_RUN) if (action[field] !== undefined) kept[field] = action[field];
  return { kept: kept as KeptAction, stored: JSON.stringify(kept), shape };
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
 * The shape of the last action inserted through the check: a mapping's runs come one after
 * another alike but for their message and per-run fields, and one of that shape is stored with
 * its fields set into it, without making its text to look it up.
 */
let lastShape: CheckedAction | undefined;

/**
 * The last action made of lastShape: runs of one mapping often share their per-run fields too
 * (a hook that names neither its run nor its session), and such a run's action is that one,
 * its text not made again nor hashed again to be remembered for its claim.
 */
let lastOfShape: CheckedAction | undefined;

/** lastShape with the action's per-run fields set: the last one made when they are the same */
function forRunOfLastShape(shape: CheckedAction, action: RunAction): CheckedAction {
  const last = lastOfShape;
  if (last?.shape === shape && samePerRun(action.name, last.kept.name, shape.kept.name) && samePerRun(action.sessionKey, last.kept.sessionKey, shape.kept.sessionKey)) return last;
  return (lastOfShape = forRun(shape, action));
}

/** whether a per-run field given as `value` comes out as `made` (forRun keeps the shape's when it is undefined) */
const samePerRun = (value: unknown, made: unknown, shaped: unknown) => (value === undefined ? made === shaped : value === made);

/**
 * The action to insert, checked (unknown fields dropped) and its text to store: what
 * `storedAction(runActionSchema.parse(action))` gives, parsed once per distinct shape.
 * An invalid action throws the schema's error.
 */
export function actionToStore(action: RunAction): { action: KeptAction; text: string } {
  const last = lastShape;
  const perRunStrings = typeof action.message === 'string' && typeof action.name === 'string' && (action.sessionKey === undefined || typeof action.sessionKey === 'string');
  const checked = !perRunStrings
    ? null
    : last && (action.sessionKey === undefined) === (last.kept.sessionKey === undefined) && sameJson(action, last.kept, SKIPPED)
      ? forRunOfLastShape(last, action)
      : checkedActions.get(storedAction(action), check);
  if (checked) {
    lastShape = checked.shape;
    // the run is read back as it is claimed: its text is known then
    checkedActions.get(checked.stored, () => checked);
    return { action: checked.kept, text: checked.stored };
  }
  const parsed = runActionSchema.parse(action);
  return { action: parsed, text: storedAction(parsed) };
}

/** the fields sameJson leaves to forRun: the message (a column of its own) and the per-run ones */
const SKIPPED: ReadonlySet<string> = new Set(['message', ...PER_RUN]);

/**
 * Whether `value` stores as `kept` (a JSON value): the same plain objects and arrays, field by field,
 * an undefined field as none (JSON leaves it out), the `skip` fields (top-level) left out on both sides.
 */
function sameJson(value: unknown, kept: unknown, skip?: ReadonlySet<string>): boolean {
  if (value === kept) return true;
  if (typeof value !== 'object' || typeof kept !== 'object' || value === null || kept === null) return false;
  if (Array.isArray(value)) return Array.isArray(kept) && value.length === kept.length && value.every((v, i) => sameJson(v, kept[i]));
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || Array.isArray(kept)) return false;
  const keptFields = kept as Record<string, unknown>;
  let fields = 0;
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || skip?.has(key)) continue;
    if (!Object.hasOwn(keptFields, key) || !sameJson(v, keptFields[key])) return false;
    fields++;
  }
  for (const key in keptFields) if (keptFields[key] !== undefined && !skip?.has(key)) fields--;
  return fields === 0;
}

/** A stored action read back with its run's message (parseRunAction's check, once per distinct shape). */
export function storedRunAction(runId: string, text: string, row: { agentId: string; message: string }): RunAction {
  const checked = checkedActions.get(text, check);
  if (checked) return withMessage(checked.kept, row.message);
  return parseRunAction(runId, JSON.parse(text), row);
}

/**
 * PostgreSQL keeps the action whole in a jsonb column, its message inside. Inserting, the action
 * is checked as SQLite's is (actionToStore, once per shape), its message set back in. Reading,
 * the driver has parsed the column: its text without the message looks the check up, so a run is
 * not parsed by the schema again on each claim and read. Anything else (no message or agent in
 * it, a message not a string) takes parseRunAction whole, as before.
 */
export function actionToStoreWhole(action: RunAction): string {
  const { action: kept } = actionToStore(action);
  return JSON.stringify({ ...kept, message: action.message });
}

export function wholeRunAction(runId: string, stored: unknown, row: { agentId: string; message: string }): RunAction {
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return parseRunAction(runId, stored, row);
  const { message, ...rest } = stored as Record<string, unknown>;
  if (typeof message !== 'string' || !('agentId' in rest)) return parseRunAction(runId, stored, row);
  return storedRunAction(runId, JSON.stringify(rest), { agentId: row.agentId, message });
}
