import { storedToolCalls } from '../../../agents/tool-use/tool-messages.js';
import { maskArguments } from '../../../runtime/approvals/mask-arguments.js';
import type { SessionMessage } from '../../../store/port.js';
import { isoTime as iso } from '../../../time/iso-time.js';

/** a tool call where the model asked for it: its id, the tool as the model named it, its arguments masked */
export interface MessageToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * A session's messages as the admin API shows them: an assistant turn that called tools carries
 * its calls (an empty content alone would say nothing), and a tool message the call it answers
 * and that call's tool, found in the turn before it. Arguments are masked as the run's
 * `toolCalls` are (secret-looking values as ••••).
 */
export function messagesView(messages: readonly SessionMessage[]) {
  const toolOf = new Map<string, string>();
  return messages.map((m) => {
    const calls = storedToolCalls(m);
    for (const c of calls) toolOf.set(c.id, c.function.name);
    const callId = m.meta?.toolCallId;
    const citations = m.meta?.citations;
    return {
      role: m.role,
      content: m.content,
      createdAt: iso(m.createdAt),
      ...(m.role === 'assistant' && calls.length && { toolCalls: calls.map((c): MessageToolCall => ({ id: c.id, name: c.function.name, arguments: maskArguments(c.function.arguments) })) }),
      ...(m.role === 'tool' && typeof callId === 'string' && { toolCallId: callId, tool: toolOf.get(callId) ?? null }),
      ...(Array.isArray(citations) && citations.length && { citations: citations as string[] }),
    };
  });
}
