import type { ToolCallRecord } from '../../store/port.js';
import type { ToolResult, ToolSpec } from '../../tools/tool-spec.js';
import type { CallVerdict, TurnTools } from '../../tools/turn-tools.js';
import type { ReplayedBy } from './eval-case.js';
import { sameArguments } from './eval-diff.js';

/** how one call the candidate's tools were asked to make was answered (by the call's record id) */
export interface ReplayedCall {
  by: Exclude<ReplayedBy, 'refused'>;
  /** the candidate's rules would hold it for a person (not granted, requireApproval, unsigned request) */
  wouldWait: boolean;
  /** the recorded result given back was cut when it was recorded (tools.maxResultChars) */
  resultCut?: boolean;
  /** why it was not executed, or refused */
  note?: string;
}

const CUT = /\n\[result cut at \d+ of \d+ characters\]$/;

/**
 * The candidate's tools under the eval's one rule, no side effects: a call the recording made
 * (same tool, same arguments) gets the recorded result; a read-only tool the recording did not
 * call runs only with `liveReads`; a write is never executed, its intended call reported. The
 * candidate's policy still decides first: what it refuses, the model is told, as it would be live.
 */
export function replayTools(candidate: TurnTools, recorded: readonly ToolCallRecord[], liveReads: boolean, calls: Map<string, ReplayedCall>): TurnTools {
  const unused = [...recorded];
  const waits = new Set<string>();
  return {
    specs: candidate.specs,
    byName: (name) => candidate.byName(name),
    timeoutMs: (spec) => candidate.timeoutMs(spec),
    maxToolCalls: candidate.maxToolCalls,
    maxResultChars: candidate.maxResultChars,
    verdict(spec: ToolSpec): CallVerdict {
      const verdict = candidate.verdict(spec);
      // an eval waits for nobody: the call is answered as below, and the report says a person would have been asked
      if (verdict.kind === 'approve') {
        waits.add(spec.name);
        return { kind: 'run' };
      }
      return verdict;
    },
    async call(spec, args, options): Promise<ToolResult> {
      const id = options.context?.callRecordId ?? '';
      const wouldWait = waits.has(spec.name);
      const at = unused.findIndex((r) => r.server === spec.server && r.tool === spec.tool && sameArguments(r.arguments, args));
      if (at >= 0) {
        const [call] = unused.splice(at, 1);
        const result = call!.result ?? call!.error ?? '';
        calls.set(id, { by: 'recording', wouldWait, ...(CUT.test(result) && { resultCut: true }) });
        return { text: result, isError: call!.result == null };
      }
      if (spec.readOnly && liveReads) {
        calls.set(id, { by: 'live-read', wouldWait });
        return candidate.call(spec, args, options);
      }
      const note = spec.readOnly
        ? 'a read the recording did not make: executed only with --live-reads'
        : 'a write: never executed in an eval';
      calls.set(id, { by: 'not-executed', wouldWait, note });
      return { text: `not executed (an evaluation replay): ${note}`, isError: true };
    },
    ...(candidate.unavailable && { unavailable: candidate.unavailable.bind(candidate) }),
  };
}
