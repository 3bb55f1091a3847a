import type { KnowledgePassage } from '../knowledge/knowledge-passage.js';
import type { ModelOptions } from '../models/provider.js';
import type { AbortWatch } from '../time/lazy-abort.js';
import type { SessionMessage, UsageSource } from '../store/port.js';
import type { TurnTools } from '../tools/turn-tools.js';
import type { AgentConfig } from './agent-directory.js';
import type { TurnOutcome } from './turn-outcome.js';
import type { ToolLedger, TurnCheckpoint } from './tool-use/tool-ledger.js';

/** what a turn's tokens count against */
export interface UsageAttribution {
  source: UsageSource;
  keyName?: string;
  mappingId?: string;
}

/** what every turn has, whatever it is for */
interface TurnBase {
  agent: AgentConfig;
  /** the session the turn belongs to: its history is read from it, its transcript written to it */
  sessionKey: string;
  /** the user-side messages this turn adds, stored with the answer */
  incoming: SessionMessage[];
  /** passed through to the model (sampling, thinking, provider fields such as tools) */
  options?: ModelOptions;
  signal?: AbortSignal;
  /** the turn's limit watched without a signal (a chat completion's): its model call listens to it, anything else reads its signal */
  limit?: AbortWatch;
  /** whom the turn's tokens count against; recorded once the turn is */
  usage?: UsageAttribution;
  /** server-side tools the turn may call (granted by config, tools/tool-policy.ts): herald runs them and asks the model again */
  tools?: TurnTools;
  /** where the turn's tool calls are recorded; required with `tools` */
  ledger?: ToolLedger;
}

/**
 * A hook run's turn (a mapping's, or a scheduled job's): the safety-wrapped prompt, the agent's
 * knowledge searched with the message as received, the chain of agents.defaults.model tried on a
 * failure within the run's time limit, and the transcript written by the run's completion.
 */
export interface HookRunTurnInput extends TurnBase {
  purpose: 'run';
  /** earlier messages, oldest first, when the run has them already; otherwise the session's newest */
  history?: SessionMessage[];
  prompt: string;
  /** the prompt's words when they were counted as it was made (the safety wrapper's): its usage estimate does not count them again */
  promptWords?: number;
  /** the message as received: the knowledge query, and what the embedded model answers */
  question: string;
  /** model ref override (a hook's `model`) */
  model?: string;
  /** when the run's time is up (epoch ms): while fallbacks remain, each model gets a share of what is left */
  deadlineAt: number;
  /** the answer message's run id */
  answer: (outcome: TurnOutcome) => Pick<SessionMessage, 'runId' | 'meta'>;
  /** go on from this checkpoint (retaken after a crash, resumed after an approval): no history, knowledge or prompt is read again */
  resume?: TurnCheckpoint;
}

/** A heartbeat's turn on the main session: the pending system events, the fallback chain, an idle ack left out of the transcript. */
export interface HeartbeatTurnInput extends TurnBase {
  purpose: 'heartbeat';
  prompt: string;
  /** the pending system events */
  events: string[];
  deadlineAt: number;
  /** false for an answer that leaves no transcript (an idle ack) */
  keep: (text: string) => boolean;
}

/**
 * A chat completion's turn on a stored conversation (checked by its caller): the first model's
 * failure is the completion's (a 502), its answer streamed when asked, and its reservation made
 * before anything was answered.
 */
export interface CompletionTurnInput extends TurnBase {
  purpose: 'chat';
  /** the conversation is new: nothing of it is stored yet */
  freshSession?: boolean;
  history: SessionMessage[];
  /** the new user message; none when the turn only continues (client tool results) */
  prompt?: string;
  /** after the new message: the assistant's client tool calls and their results */
  continuation: SessionMessage[];
  /** what the agent's knowledge is searched with */
  question: string;
  stream?: boolean;
  /** streamed: called once the model accepted the request (an OpenAI-compatible upstream's answer headers are in) */
  onOpen?: () => void;
  /** the answer message's meta, given what the turn found (its citations) */
  answer: (outcome: TurnOutcome) => Pick<SessionMessage, 'runId' | 'meta'>;
  /** the first model call's budget reservation (Budgets.reserve); later calls reserve their own */
  reservation?: number;
  /** false for a completion that keeps no transcript (`store: false`): only its tokens are recorded */
  keep?: (text: string) => boolean;
}

/**
 * A Responses API turn: the history is the chain of previous responses, knowledge is searched
 * by the request's file_search tool when it has one, and the answer is kept as a response record
 * (by its caller), not a session transcript; a paused response goes on from its checkpoint.
 */
export interface ResponsesTurnInput extends TurnBase {
  purpose: 'response';
  history: SessionMessage[];
  prompt?: string;
  continuation?: SessionMessage[];
  question?: string;
  /** where the question is searched instead of the agent's knowledge (file_search over vector stores) */
  search?: (question: string) => Promise<KnowledgePassage[]>;
  stream?: boolean;
  reservation?: number;
  resume?: TurnCheckpoint;
}

/** What one turn is, by what it is for: each caller of the one agent turn has its own input. */
export type AgentTurnInput = HookRunTurnInput | HeartbeatTurnInput | CompletionTurnInput | ResponsesTurnInput;

type KeyOfAny<T> = T extends unknown ? keyof T : never;
type FieldOfAny<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/** every purpose's input read as one, a field a purpose has not being undefined: what the turn's steps read */
export type TurnFields = TurnBase & Pick<AgentTurnInput, 'purpose'> & { [K in Exclude<KeyOfAny<AgentTurnInput>, keyof TurnBase | 'purpose'>]?: FieldOfAny<AgentTurnInput, K> };
