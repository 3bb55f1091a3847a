import { deadline } from '../deadline.js';
import type { ModelOptions } from '../models/provider.js';
import type { AgentConfig } from './agent-directory.js';
import { agentTurn, type AgentTurnDeps, type TurnDelta, type TurnOutcome } from './agent-turn.js';
import { requireClientTools, type ClientToolsUse } from './client-tools.js';
import { openConversation, type ChatInputMessage } from './conversation.js';
import { modelFailure } from './model-call-error.js';

export interface ChatTurnInput {
  agent: AgentConfig;
  /** continue this stored conversation; a new one is started without it */
  conversationId?: string;
  messages: ChatInputMessage[];
  metadata?: Record<string, string>;
  /** passed through to the model (client tools and response_format in `extra`) */
  options?: ModelOptions;
  /** the client tools or structured output asked for: the agent's model must be able to take them */
  clientTools?: ClientToolsUse;
}

export interface ChatTurn {
  conversationId: string;
  /**
   * Runs the turn. Streamed, it yields the answer's deltas; either way its return value is the
   * outcome, and by then the conversation's new messages and the answer are stored, together.
   * A model failure is thrown as a HeraldError (HERALD_MODEL_FAILED, the upstream status only).
   */
  run(options: { stream?: boolean; signal?: AbortSignal }): AsyncGenerator<TurnDelta, TurnOutcome, undefined>;
}

/**
 * A chat with a digital employee (POST /v1/chat/completions): the conversation is opened first,
 * so an unknown one is refused before anything is sent, then the one agent turn runs over it
 * with the agent's knowledge, within `agents.defaults.timeoutSeconds`.
 */
export async function openChatTurn(deps: AgentTurnDeps, input: ChatTurnInput): Promise<ChatTurn> {
  const { agent } = input;
  const { timeoutSeconds, historyLimit } = deps.config.agents.defaults;
  requireClientTools(deps, agent, input.clientTools);
  const conversation = await openConversation(
    deps.sessions,
    { agentId: agent.id, conversationId: input.conversationId, messages: input.messages, metadata: input.metadata },
    historyLimit,
  );
  return {
    conversationId: conversation.id,
    async *run({ stream, signal }) {
      // the time limit, GC-safe (AbortSignal.any with AbortSignal.timeout is not on Node 20: deadline.ts)
      const limit = deadline(timeoutSeconds * 1000, signal);
      try {
        return yield* agentTurn(deps, {
          agent,
          purpose: 'chat',
          sessionKey: conversation.sessionKey,
          history: conversation.history,
          prompt: conversation.prompt,
          continuation: conversation.continuation,
          question: conversation.question,
          retrieve: true,
          options: input.options,
          signal: limit.signal,
          stream,
          incoming: conversation.incoming,
          answer: ({ knowledge }) => ({ meta: { agentId: agent.id, ...(knowledge.length && { citations: knowledge.map((p) => p.chunkId) }) } }),
        });
      } catch (error) {
        throw modelFailure(error, limit.timedOut, timeoutSeconds);
      } finally {
        limit.clear();
      }
    },
  };
}
