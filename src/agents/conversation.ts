import { HeraldError } from '../errors.js';
import type { ModelToolCall } from '../models/provider.js';
import { packedMap } from '../utils/packed-map.js';
import { timeOrderedHex } from '../utils/random-hex.js';
import type { SessionMessage, SessionsRepo } from '../store/port.js';
import { checkToolResults, storedToolCalls, toolMeta } from './tool-use/tool-messages.js';

/**
 * A chat conversation lives in the store as the session `chat:<conversation_id>`, so the admin
 * API shows it (`GET /admin/sessions/chat:conv_.../messages`). Every message carries the agent
 * in its meta: a conversation belongs to one agent, and to the key (or group of keys) that started
 * it: to any other key it does not exist.
 */
export const conversationSessionKey = (id: string) => `chat:${id}`;

const CONVERSATION_ID = /^conv_[a-f0-9]{24}$/;

/** A message of a chat request, its content already text; `developer` counts as `system`. */
export interface ChatInputMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant: the client tools it called */
  toolCalls?: ModelToolCall[];
  /** tool: the call this result answers */
  toolCallId?: string;
}

export interface ConversationRequest {
  agentId: string;
  /** whose the conversation is (the key, or its group): kept in each message's meta, and only it may continue it */
  owner: string;
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
  /** the new user message; absent when the request only answers the model's tool calls */
  prompt?: string;
  /** what knowledge is searched with: the new user message, or the one the tool calls serve */
  question: string;
  /** what follows the new user message: the assistant's tool calls and their results */
  continuation: SessionMessage[];
  /** the messages this request adds before the answer (the seed of a new conversation, the question, tool results) */
  incoming: SessionMessage[];
  /** a new conversation: nothing of it is stored yet */
  fresh?: boolean;
}

/**
 * Opens the conversation a chat request continues (its newest `historyLimit` messages, which
 * must belong to the agent) or starts a new one seeded with the request's earlier messages.
 * A stored conversation continues with a new user message, or with the results of the tool
 * calls its last answer made.
 */
export function openConversation(sessions: SessionsRepo, request: ConversationRequest, historyLimit: number): Conversation | Promise<Conversation> {
  const { agentId, messages } = request;
  const now = Date.now();
  const meta: Record<string, unknown> = { agentId, owner: request.owner };
  if (request.metadata) meta.metadata = request.metadata;
  // the request's messages share one meta (a stored message's meta is replaced, never changed in place); a tool call's or result's has its own
  const toStored = (m: ChatInputMessage): SessionMessage => ({
    role: m.role === 'developer' ? 'system' : m.role,
    content: m.content,
    createdAt: now,
    meta: m.toolCalls?.length || m.toolCallId !== undefined ? Object.assign({}, meta, toolMeta(m)) : meta,
  });

  // a new conversation is a value (nothing to read); a stored one waits for its history
  if (request.conversationId !== undefined) return continueConversation(sessions, request, request.conversationId, historyLimit, toStored);

  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  if (lastUser < 0) throw new HeraldError('HERALD_INVALID_FIELD', 'messages must hold a user message', { param: 'messages' });
  checkToolResults(messages, (i) => `messages[${i}].tool_call_id`);
  // time-ordered: a new conversation's messages go to the end of the session indexes
  const id = `conv_${timeOrderedHex(12)}`;
  const seed = packedMap(messages.slice(0, lastUser), toStored);
  const question = toStored(messages[lastUser]!);
  const continuation = packedMap(messages.slice(lastUser + 1), toStored);
  return {
    id,
    sessionKey: conversationSessionKey(id),
    history: seed,
    prompt: question.content,
    question: question.content,
    continuation,
    incoming: [...seed, question, ...continuation],
    fresh: true,
  };
}

/** a stored conversation, continued: its newest `historyLimit` messages, which must belong to the agent and the owner */
async function continueConversation(
  sessions: SessionsRepo,
  request: ConversationRequest,
  id: string,
  historyLimit: number,
  toStored: (m: ChatInputMessage) => SessionMessage,
): Promise<Conversation> {
  const { agentId, messages } = request;
  const sessionKey = conversationSessionKey(id);
  const history = CONVERSATION_ID.test(id) ? await sessions.messages(sessionKey, historyLimit) : [];

  // a conversation stored before conversations had owners has none: any key allowed the agent continues it
  const owner = history.find((m) => typeof m.meta?.owner === 'string')?.meta?.owner;
  if (!history.length || history[0]!.meta?.agentId !== agentId || (owner !== undefined && owner !== request.owner)) {
    throw new HeraldError('HERALD_CONVERSATION_NOT_FOUND', `No conversation "${id}" with the agent "${agentId}".`, { param: 'conversation_id' });
  }
  const last = messages.at(-1)!;
  if (last.role === 'user') {
    const incoming = [toStored(last)];
    return { id, sessionKey, history, prompt: last.content, question: last.content, continuation: [], incoming };
  }
  if (last.role !== 'tool') {
    throw new HeraldError('HERALD_INVALID_FIELD', 'with conversation_id, the last message must be the new user message, or tool results', {
      param: `messages[${messages.length - 1}].role`,
    });
  }
  // the trailing tool messages answer the calls of the stored last answer (a client may resend the whole exchange)
  let first = messages.length - 1;
  while (first > 0 && messages[first - 1]!.role === 'tool') first--;
  const results = messages.slice(first);
  const pending = history.at(-1)!;
  checkToolResults(
    [{ role: pending.role, toolCalls: storedToolCalls(pending) }, ...results],
    (i) => (i === 0 ? undefined : `messages[${first + i - 1}].tool_call_id`),
  );
  const incoming = packedMap(results, toStored);
  const question = history.findLast((m) => m.role === 'user')?.content ?? '';
  return { id, sessionKey, history, question, continuation: incoming, incoming };
}
