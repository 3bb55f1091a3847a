import { HeraldError } from '../../errors.js';
import { newId } from '../../knowledge/knowledge-index.js';
import type { SessionMessage, SessionsRepo } from '../../store/port.js';
import { messageText, type ChatRequest } from './chat-request.js';

const HISTORY_LIMIT = 100;

/**
 * A chat conversation lives in the store as the session `chat:<conversation_id>`, so the admin
 * API shows it (`GET /admin/sessions/chat:conv_.../messages`). Every message carries the agent
 * in its meta: a conversation belongs to one agent.
 */
export const conversationSessionKey = (id: string) => `chat:${id}`;

export interface Conversation {
  id: string;
  sessionKey: string;
  /** earlier messages, oldest first (system ones included) */
  history: SessionMessage[];
  /** the new user message */
  question: string;
  /** the messages this request adds before the answer (the seed of a new conversation, or the new question) */
  incoming: SessionMessage[];
}

export async function openConversation(sessions: SessionsRepo, agentId: string, body: ChatRequest): Promise<Conversation> {
  const now = Date.now();
  const meta = { agentId, ...(body.metadata && { metadata: body.metadata }) };
  const toStored = (m: ChatRequest['messages'][number]): SessionMessage => ({
    role: m.role === 'developer' ? 'system' : m.role,
    content: messageText(m.content),
    createdAt: now,
    meta,
  });

  if (body.conversation_id) {
    const id = body.conversation_id;
    const sessionKey = conversationSessionKey(id);
    const history = /^conv_[a-f0-9]{24}$/.test(id) ? await sessions.messages(sessionKey, HISTORY_LIMIT) : [];
    if (!history.length || history[0]!.meta?.agentId !== agentId) {
      throw new HeraldError('HERALD_CONVERSATION_NOT_FOUND', `No conversation "${id}" with the agent "${agentId}".`, { param: 'conversation_id' });
    }
    const last = body.messages.at(-1)!;
    if (last.role !== 'user') {
      throw new HeraldError('HERALD_INVALID_FIELD', 'with conversation_id, the last message must be the new user message', { param: `messages[${body.messages.length - 1}].role` });
    }
    const incoming = [toStored(last)];
    return { id, sessionKey, history, question: incoming[0]!.content, incoming };
  }

  const lastUser = body.messages.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new HeraldError('HERALD_INVALID_FIELD', 'messages must hold a user message', { param: 'messages' });
  const id = newId('conv');
  const seed = body.messages.slice(0, lastUser).map(toStored);
  const question = toStored(body.messages[lastUser]!);
  return { id, sessionKey: conversationSessionKey(id), history: seed, question: question.content, incoming: [...seed, question] };
}

export async function recordMessages(sessions: SessionsRepo, conversation: Conversation, messages: SessionMessage[]): Promise<void> {
  for (const m of messages) await sessions.append(conversation.sessionKey, m);
}
