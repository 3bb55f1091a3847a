import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import type { ModelToolCall, ModelUsage } from '../models/provider.js';
import type { ToolCallRecord } from '../store/port.js';
import type { TurnCheckpoint } from './tool-use/tool-ledger.js';

/** a model of the chain that failed before one answered, with its reason */
export interface ModelFailure {
  ref: string;
  error: string;
}

/** one model call's answer, streamed or not, from whichever model of the chain gave it */
export interface ModelAnswer {
  text: string;
  refusal: string;
  usage?: ModelUsage;
  finishReason: string;
  modelRef: string;
  failures: ModelFailure[];
  toolCalls: ModelToolCall[];
}

/** what a turn came to: its answer, the tokens it spent, the passages it cited, the models that failed first, the calls it made or waits on */
export interface TurnOutcome {
  text: string;
  /** the model declined: its explanation (OpenAI's `refusal`), passed on as such, apart from the text */
  refusal?: string;
  finishReason: string;
  /** the provider's count, or an estimate in words when it gave none */
  usage: ModelUsage;
  /** the passages the model was given (the answer's citations) */
  knowledge: KnowledgePassage[];
  /** the model ref that answered */
  modelRef: string;
  /** the models of the chain that failed before it, with their reasons */
  failures: ModelFailure[];
  /** the client tools the model called (the client runs them and continues the turn with their results) */
  toolCalls: ModelToolCall[];
  /** server-side tool calls made in this turn */
  toolCallsMade: number;
  /**
   * the turn stopped for a person's approval: the calls waiting, and where the turn stands. No
   * transcript was written: the caller keeps the turn (a run waits as waiting_approval).
   */
  paused?: { pending: ToolCallRecord[]; checkpoint: TurnCheckpoint };
}
