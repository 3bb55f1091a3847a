import type { ChatMessage } from '../models/provider.js';
import type { SessionMessage } from '../store/port.js';
import type { TurnOutcome } from './turn-outcome.js';
import { toolMeta } from './tool-use/tool-messages.js';

/**
 * The model's answer as the session keeps it, built field by field (an object literal spreading
 * `answer` takes V8's slow path for each field written after it): a refusal is what the model said
 * in the conversation, so the next turn's model sees it as its answer; the client tool calls are
 * kept with it, so a continuation sends the upstream the calls its tool results answer.
 */
export function answerMessage(outcome: TurnOutcome, refusal: string, answer: Pick<SessionMessage, 'runId' | 'meta'> | undefined): SessionMessage {
  const message: SessionMessage = { role: 'assistant', content: outcome.text || refusal, createdAt: Date.now() };
  if (answer?.runId !== undefined) message.runId = answer.runId;
  const { toolCalls } = outcome;
  const meta = toolCalls.length || refusal ? { ...answer?.meta, ...(toolCalls.length && { toolCalls }), ...(refusal && { refusal }) } : answer?.meta;
  if (meta !== undefined) message.meta = meta;
  return message;
}

/** a message of the turn's server-side tool exchange as the session keeps it (tool-messages.ts) */
export function sessionMessageOf(m: ChatMessage, answer: Pick<SessionMessage, 'runId' | 'meta'> | undefined): SessionMessage {
  const message: SessionMessage = { role: m.role, content: m.content, createdAt: Date.now() };
  if (answer?.runId !== undefined) message.runId = answer.runId;
  const meta = toolMeta({ toolCalls: m.tool_calls, toolCallId: m.tool_call_id });
  if (Object.keys(meta).length) message.meta = meta;
  return message;
}
