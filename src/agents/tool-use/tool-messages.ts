import { HeraldError } from '../../errors.js';
import type { ChatMessage, ModelToolCall } from '../../models/provider.js';
import type { SessionMessage } from '../../store/port.js';

/**
 * Client tool calls in a stored conversation: an assistant message keeps the calls it made in
 * `meta.toolCalls`, a `tool` message the call it answers in `meta.toolCallId`, so the session
 * table needs no new column and the admin API still shows role and content.
 */
export const toolMeta = (m: { toolCalls?: ModelToolCall[]; toolCallId?: string }) => ({
  ...(m.toolCalls?.length && { toolCalls: m.toolCalls }),
  ...(m.toolCallId !== undefined && { toolCallId: m.toolCallId }),
});

export const storedToolCalls = (m: SessionMessage): ModelToolCall[] => (m.meta?.toolCalls as ModelToolCall[] | undefined) ?? [];

/** a stored message as the model sees it, in OpenAI's message shape */
export function chatMessageOf(m: SessionMessage): ChatMessage {
  const calls = storedToolCalls(m);
  const callId = m.meta?.toolCallId;
  return {
    role: m.role === 'system' ? 'system' : m.role,
    content: m.content,
    ...(m.role === 'assistant' && calls.length && { tool_calls: calls }),
    ...(m.role === 'tool' && typeof callId === 'string' && { tool_call_id: callId }),
  };
}

/**
 * A valid message sequence for an OpenAI-compatible upstream, which refuses a `tool` message
 * that answers no call just before it and an assistant's calls left without their answers. The
 * history limit can cut a stored exchange in two, and a client may drop calls it did not run by
 * asking something new: such leftovers are left out (or the calls stripped) rather than failing.
 * Pushed onto `out` when given (a prompt's array, its system message first), else onto a new array.
 */
export function wellFormedToolSequence(messages: ChatMessage[], out: ChatMessage[] = []): ChatMessage[] {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') continue; // kept only as the answers of the assistant message before them (below)
    if (m.role !== 'assistant' || !m.tool_calls?.length) {
      out.push(m);
      continue;
    }
    let end = i + 1;
    while (messages[end]?.role === 'tool') end++;
    const ids = new Set(m.tool_calls.map((c) => c.id));
    const answers = messages.slice(i + 1, end).filter((t) => t.tool_call_id !== undefined && ids.has(t.tool_call_id));
    const answered = new Set(answers.map((t) => t.tool_call_id));
    if ([...ids].every((id) => answered.has(id))) out.push(m, ...answers);
    else if (m.content) out.push({ role: 'assistant', content: m.content });
    i = end - 1;
  }
  return out;
}

/**
 * Checks the tool results a client sent: each `tool` message answers a call of the assistant
 * message (sent or stored) just before its run of tool messages. `paramOf(i)` names message i of
 * `messages` in the request (`messages[3]`, `input[1]`); earlier (stored) messages have none.
 */
export function checkToolResults(messages: { role: string; toolCalls?: ModelToolCall[]; toolCallId?: string }[], paramOf: (i: number) => string | undefined): void {
  let calls = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') calls = new Set((m.toolCalls ?? []).map((c) => c.id));
    else if (m.role !== 'tool') calls = new Set();
    else if (m.toolCallId === undefined || !calls.has(m.toolCallId)) {
      const param = paramOf(i);
      if (param === undefined) return;
      throw new HeraldError(
        'HERALD_INVALID_FIELD',
        `${param}: a tool result must answer a call of the assistant message before it (no pending tool call "${m.toolCallId ?? ''}")`,
        { param },
      );
    }
  });
}
