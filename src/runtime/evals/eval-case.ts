import type { ReceiptOutcome } from '../../store/port.js';

/** how a candidate's call was answered in the replay */
export type ReplayedBy = 'recording' | 'live-read' | 'not-executed' | 'refused';

/** one tool call of a side, as the report compares them */
export interface EvalToolCall {
  /** `<server>__<tool>` */
  tool: string;
  /** the arguments as the model wrote them (JSON text) */
  arguments: string;
  /** recorded: the call's status then; candidate: how the replay answered it */
  status: string;
  by?: ReplayedBy;
  /** the candidate's rules would hold it for a person */
  wouldWait?: boolean;
  resultCut?: boolean;
  note?: string;
}

/** what happened to a request (recorded), or would happen (candidate) */
export interface EvalSide {
  /** the mapping's outcome: the action kind, a skip, an error, a handshake's answer */
  outcome: ReceiptOutcome;
  mappingId: string | null;
  /** why the mapping failed (its cause, or the refusal's message) */
  error?: string;
  /** the action's message (an agent run's) or text (a wake's), as the model would see it before the safety wrapper */
  message?: string;
  agentId?: string;
  toolCalls: EvalToolCall[];
  reply?: string | null;
  /** the run's status (succeeded, failed, waiting_approval, ...) */
  runStatus?: string;
  runError?: string | null;
  model?: string | null;
  tokens?: { prompt: number; completion: number };
  cost?: number;
  ms?: number;
}

/** what changed between the recording and the candidate */
export type EvalChange = 'mapping' | 'message' | 'tool-calls' | 'reply' | 'failed';

export interface ToolCallDiff {
  added: EvalToolCall[];
  removed: EvalToolCall[];
  /** the same tool called with other arguments */
  changed: { tool: string; before: string; after: string }[];
}

/** one replayed request: both sides, what changed, and the checks on it */
export interface EvalCase {
  /** the receipt's id, or `fixture:<file>#<n>` */
  id: string;
  source: 'recording' | 'fixture';
  label?: string;
  path: string;
  receivedAt?: number;
  recorded?: EvalSide;
  candidate: EvalSide;
  changes: EvalChange[];
  toolCallDiff: ToolCallDiff;
  /** the writes the candidate meant to make (never executed) */
  intended: EvalToolCall[];
  /** with repeat > 1: how many different replies and sets of tool calls the repeats gave */
  repeats?: { runs: number; distinctReplies: number; distinctToolCalls: number };
  /** a fixture's `expect.toolCalls` / `expect.replyIncludes`, checked */
  expectations?: { ok: boolean; failures: string[] };
  judge?: { score: number; verdict: string; reason: string } | { error: string };
}
