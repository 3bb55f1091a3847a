import { deadline, type Deadline } from '../../time/deadline.js';
import type { ModelOptions } from '../../models/provider.js';
import type { AgentConfig } from '../../agents/agent-directory.js';
import { runAgentTurn, type AgentTurnDeps } from '../../agents/agent-turn.js';
import type { TurnOutcome } from '../../agents/turn-outcome.js';
import type { TurnDelta } from '../../agents/model-answer.js';
import type { UsageAttribution } from '../../agents/turn-inputs.js';
import { budgetHolders, reserveFor } from '../../agents/turn-usage.js';
import { requireClientTools, type ClientToolsUse } from '../../agents/tool-use/client-tools.js';
import { turnModelRefs } from '../../agents/turn-prompt.js';
import { openConversation, type ChatInputMessage, type Conversation } from '../../agents/conversation.js';
import { modelFailure } from '../../agents/model-call-error.js';
import { callsLedger, type ToolLedger } from '../../agents/tool-use/tool-ledger.js';
import type { TurnTools } from '../../tools/turn-tools.js';

export interface ChatTurnInput {
  agent: AgentConfig;
  /** whose the conversation is (conversationOwner of the API key) */
  owner: string;
  /** continue this stored conversation; a new one is started without it */
  conversationId?: string;
  messages: ChatInputMessage[];
  metadata?: Record<string, string>;
  /** passed through to the model (client tools and response_format in `extra`) */
  options?: ModelOptions;
  /** the client tools or structured output asked for: the agent's model must be able to take them */
  clientTools?: ClientToolsUse;
  /** whom its tokens count against (the API key) */
  usage?: UsageAttribution;
  /** false: the turn's messages are not kept (the request's `store: false`), only its tokens' record */
  store?: boolean;
}

export interface ChatTurnRun {
  /** stream the model's answer: its deltas are handed to `onDelta` as they come */
  stream?: boolean;
  onDelta?: (delta: TurnDelta) => void;
  /** streamed: the model accepted the request (its answer's headers are in) */
  onOpen?: () => void;
}

export interface ChatTurn {
  /** the stored conversation the turn is part of: none for a new one the turn does not keep (`store: false`) */
  conversationId: string | undefined;
  /**
   * Runs the turn; its outcome is there once the conversation's new messages and the answer are
   * stored, together (with `store: false`, once its tokens' record is). A model failure is thrown
   * as a HeraldError (HERALD_MODEL_FAILED, the upstream status only).
   */
  run(options?: ChatTurnRun): Promise<TurnOutcome>;
  /** the client went away: the model call is aborted and nothing is recorded */
  cancel(reason: unknown): void;
}

/**
 * A chat with a digital employee (POST /v1/chat/completions): the conversation is opened first,
 * so an unknown one is refused before anything is sent, then the one agent turn runs over it
 * with the agent's knowledge, within `agents.defaults.timeoutSeconds`.
 */
export function openChatTurn(deps: AgentTurnDeps, input: ChatTurnInput): ChatTurn | Promise<ChatTurn> {
  const { agent } = input;
  requireClientTools(deps, agent, input.clientTools);
  const opening = openConversation(
    deps.sessions,
    { agentId: agent.id, owner: input.owner, conversationId: input.conversationId, messages: input.messages, metadata: input.metadata },
    deps.config.agents.defaults.historyLimit,
  );
  // a value when nothing is waited for (a new conversation, no budget): no promise per completion
  return opening instanceof Promise ? opening.then((conversation) => admitChat(deps, input, conversation)) : admitChat(deps, input, opening);
}

/**
 * The model call's estimate reserved against the budgets now, before anything is answered: a
 * streamed completion past a budget is a 429 too, not an error inside a 200 stream.
 */
function admitChat(deps: AgentTurnDeps, input: ChatTurnInput, conversation: Conversation): ChatTurn | Promise<ChatTurn> {
  // the estimate's messages are gathered only for a turn with a budget
  const holders = budgetHolders(deps, input);
  const reserving =
    holders &&
    reserveFor(
      deps,
      holders,
      { agent: input.agent, usage: input.usage },
      { messages: [...conversation.history, ...conversation.incoming, ...conversation.continuation], maxTokens: input.options?.maxTokens },
      turnModelRefs(deps.config, input.agent)[0]!,
    );
  return reserving instanceof Promise ? reserving.then((reservation) => chatTurn(deps, input, conversation, reservation)) : chatTurn(deps, input, conversation, reserving);
}

function chatTurn(deps: AgentTurnDeps, input: ChatTurnInput, conversation: Conversation, reservation: number | undefined): ChatTurn {
  // a chat's caller holds an API key (no outside content), and no person is waited for mid-request
  const tools = deps.toolbox?.grant(input.agent, { outside: false, canWait: false });
  const ledger = tools && deps.toolCalls ? callsLedger(deps.toolCalls, 'chat', conversation.id) : undefined;
  return new OpenedChatTurn(deps, input, conversation, reservation, ledger && tools, ledger);
}

/** a completion that keeps no transcript: its answer is left out of the conversation, as are the request's messages */
const KEEP_NOTHING = () => false;

/** a chat turn as a class: its methods are its prototype's, not two closures made per completion */
class OpenedChatTurn implements ChatTurn {
  readonly conversationId: string | undefined;
  /** one time limit per completion, which the client's going away aborts too */
  private limit: Deadline | undefined;
  private cancelled: { reason: unknown } | undefined;

  constructor(
    private readonly deps: AgentTurnDeps,
    private readonly input: ChatTurnInput,
    private readonly conversation: Conversation,
    private readonly reservation: number | undefined,
    private readonly tools: TurnTools | undefined,
    private readonly ledger: ToolLedger | undefined,
  ) {
    // a new conversation not kept has an id only for its tool calls' records: there is nothing to continue
    this.conversationId = input.store === false && conversation.fresh ? undefined : conversation.id;
  }

  async run({ stream, onDelta, onOpen }: ChatTurnRun = {}): Promise<TurnOutcome> {
    const { deps, input, conversation } = this;
    const { agent } = input;
    const { timeoutSeconds } = deps.config.agents.defaults;
    // the time limit, GC-safe (AbortSignal.any with AbortSignal.timeout is not on Node 20: deadline.ts)
    const time = (this.limit = deadline(timeoutSeconds * 1000));
    if (this.cancelled) time.abort(this.cancelled.reason);
    try {
      return await runAgentTurn(
        deps,
        {
          agent,
          purpose: 'chat',
          sessionKey: conversation.sessionKey,
          freshSession: conversation.fresh,
          history: conversation.history,
          prompt: conversation.prompt,
          continuation: conversation.continuation,
          question: conversation.question,
          options: input.options,
          // the limit itself, not its signal: the model call listens to it without one being made
          limit: time,
          stream,
          onOpen,
          incoming: conversation.incoming,
          answer: ({ knowledge }) => {
            const meta: Record<string, unknown> = { agentId: agent.id, owner: input.owner };
            if (knowledge.length) meta.citations = knowledge.map((p) => p.chunkId);
            return { meta };
          },
          // named whether set or not (not spread in when set): every chat turn's input has one shape
          usage: input.usage,
          reservation: this.reservation,
          keep: input.store === false ? KEEP_NOTHING : undefined,
          tools: this.tools,
          ledger: this.ledger,
        },
        onDelta,
      );
    } catch (error) {
      throw modelFailure(error, time.timedOut, timeoutSeconds);
    } finally {
      time.clear();
    }
  }

  cancel(reason: unknown): void {
    if (this.limit) this.limit.abort(reason);
    else this.cancelled ??= { reason };
  }
}
