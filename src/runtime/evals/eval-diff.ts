import { isDeepStrictEqual } from 'node:util';
import type { EvalChange, EvalSide, EvalToolCall, ToolCallDiff } from './eval-case.js';

/** a call's arguments as recorded (JSON text) read back; the text itself when it is not JSON (a model's malformed call), equal to nothing else */
export function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** a recorded call's arguments are these: compared as values, not as text (key order, spacing) */
export const sameArguments = (recorded: string, args: unknown) => isDeepStrictEqual(parsedArguments(recorded), args);

const same = (a: EvalToolCall, b: EvalToolCall) => a.tool === b.tool && sameArguments(a.arguments, parsedArguments(b.arguments));

/**
 * The candidate's calls against the recording's: pairs with the same tool and arguments are the
 * same call; of the rest, one of each side naming the same tool is a call whose arguments changed;
 * what remains was added or removed.
 */
export function diffToolCalls(before: readonly EvalToolCall[], after: readonly EvalToolCall[]): ToolCallDiff {
  const left = [...before];
  const right: EvalToolCall[] = [];
  for (const call of after) {
    const at = left.findIndex((b) => same(b, call));
    if (at >= 0) left.splice(at, 1);
    else right.push(call);
  }
  const changed: ToolCallDiff['changed'] = [];
  const added: EvalToolCall[] = [];
  for (const call of right) {
    const at = left.findIndex((b) => b.tool === call.tool);
    if (at < 0) {
      added.push(call);
      continue;
    }
    const [was] = left.splice(at, 1);
    changed.push({ tool: call.tool, before: was!.arguments, after: call.arguments });
  }
  return { added, removed: left, changed };
}

/** replies compared as a reader would: whitespace runs are one space */
const normal = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

const failedSide = (side: EvalSide) => side.outcome === 'error' || side.runStatus === 'failed' || side.runStatus === 'timed_out';

/** what changed between the two sides (the recording absent: a fixture case, only its own failure counts) */
export function changesOf(recorded: EvalSide | undefined, candidate: EvalSide, diff: ToolCallDiff): EvalChange[] {
  const changes: EvalChange[] = [];
  if (failedSide(candidate) && (!recorded || !failedSide(recorded))) changes.push('failed');
  if (!recorded) return changes;
  if (recorded.outcome !== candidate.outcome || recorded.mappingId !== candidate.mappingId) changes.push('mapping');
  if (recorded.message !== undefined && candidate.message !== undefined && recorded.message !== candidate.message) changes.push('message');
  if (diff.added.length || diff.removed.length || diff.changed.length) changes.push('tool-calls');
  const replied = (side: EvalSide) => side.reply !== undefined && side.reply !== null;
  if ((replied(recorded) || replied(candidate)) && normal(recorded.reply) !== normal(candidate.reply)) changes.push('reply');
  return changes;
}
