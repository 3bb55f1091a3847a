import { HeraldError } from '../errors.js';
import { randomHex } from '../platform/random-hex.js';
import type { SessionMessage, SessionsRepo } from '../store/port.js';

/**
 * A chat conversation lives in the store as the session `chat:<conversation_id>`, so the admin
 * API shows it (`GET /admin/sessions/chat:conv_.../messages`). Every message carries the agent
 * in its meta: a conversation belongs to one agent.
 */
export const conversationSessionKey = (id: string) => `chat:${id}`;

const CONVERSATION_ID = /^conv_[a-f0-9]{24}$/;

/** A message of a chat request, its content already text; `developer` counts as `system`. */
export interface ChatInputMessage {
  role: 'system' | 'developer' | 'user' | 'assistant';
  content: string;
}

export interface ConversationRequest {
  agentId: string;
  /** continue this stored conversation; a new one is started without it */
  conversationId?: string;
  messages: ChatInputMessage[];
  /** kept with the stored messages */
  metadata?: Record<string, string>;
}

export interface Conversation {
  id: string;
  sessionKey: string;
  /** earlier messages the model sees, oldest first (system ones included) */
  history: SessionMessage[];
  /** the new user message */
  question: string;
  /** the messages this request adds before the answer (the seed of a new conversation, or the new question) */
  incoming: SessionMessage[];
}

/**
 * Opens the conversation a chat request continues (its newest `historyLimit` messages, which
 * must belong to the agent) or starts a new one seeded with the request's earlier messages.
 */
export async function openConversation(sessions: SessionsRepo, request: ConversationRequest, historyLimit: number): Promise<Conversation> {
  const { agentId, messages } = request;
  const now = Date.now();
  const meta = { agentId, ...(request.metadata && { metadata: request.metadata }) };
  const toStored = (m: ChatInputMessage): SessionMessage => ({ role: m.role === 'developer' ? 'system' : m.role, content: m.content, createdAt: now, meta });

  if (request.conversationId !== undefined) {
    const id = request.conversationId;
    const sessionKey = conversationSessionKey(id);
    const history = CONVERSATION_ID.test(id) ? await sessions.messages(sessionKey, historyLimit) : [];
    if (!history.length || history[0]!.meta?.agentId !== agentId) {
      throw new HeraldError('HERALD_CONVERSATION_NOT_FOUND', `No conversation "${id}" with the agent "${agentId}".`, { param: 'conversation_id' });
    }
    const last = messages.at(-1)!;
    if (last.role !== 'user') {
      throw new HeraldError('HERALD_INVALID_FIELD', 'with conversation_id, the last message must be the new user message', { param: `messages[${messages.length - 1}].role` });
    }
    const incoming = [toStored(last)];
    return { id, sessionKey, history, question: incoming[0]!.content, incoming };
  }

  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new HeraldError('HERALD_INVALID_FIELD', 'messages must hold a user message', { param: 'messages' });
  const id = `conv_${randomHex(12)}`;
  const seed = messages.slice(0, lastUser).map(toStored);
  const question = toStored(messages[lastUser]!);
  return { id, sessionKey: conversationSessionKey(id), history: seed, question: question.content, incoming: [...seed, question] };
}
