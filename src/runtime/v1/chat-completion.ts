import type { AgentConfig, AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../agents/agent-turn.js';
import { openChatTurn, type ChatTurn, type ChatTurnInput } from '../turns/chat-turn.js';
import { conversationOwner, type ApiPrincipal } from '../../accounts/api-keys.js';
import { requireAgent } from './agent-access.js';

export interface PlatformTurnsDeps {
  /** the agent turn's needs: models, sessions, knowledge, usage and budgets */
  turns: AgentTurnDeps;
  agents: AgentDirectory;
}

/** a chat completion as asked: the agent it names as `model`, and the turn's own inputs */
export interface ChatCompletionRequest extends Pick<ChatTurnInput, 'conversationId' | 'messages' | 'metadata' | 'options' | 'clientTools' | 'store'> {
  model: unknown;
}

/** the agent a chat completion names, and its turn */
export interface OpenedChat {
  agent: AgentConfig;
  chat: ChatTurn;
}

/**
 * POST /v1/chat/completions: the key may use the agent it names (404 otherwise, param `model`);
 * the chat turn opens on the key's own conversations, its tokens counted against the key and
 * the agent, whose budgets the turn checks as it is admitted (429 before anything is answered).
 */
export function openChatCompletion(deps: PlatformTurnsDeps, principal: ApiPrincipal, request: ChatCompletionRequest): OpenedChat | Promise<OpenedChat> {
  const agent = requireAgent(deps.agents, principal, request.model, 'model');
  const opening = openChatTurn(deps.turns, {
    agent,
    owner: conversationOwner(principal),
    conversationId: request.conversationId,
    messages: request.messages,
    metadata: request.metadata,
    options: request.options,
    clientTools: request.clientTools,
    store: request.store,
    usage: { source: 'chat', keyName: principal.name },
  });
  // a value when the turn opened without waiting (a new conversation, no budget): no promise per completion
  return opening instanceof Promise ? opening.then((chat) => ({ agent, chat })) : { agent, chat: opening };
}
