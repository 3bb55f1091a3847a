import { h } from './dom.js';

/**
 * A transcript's message: an assistant turn that called tools shows the calls where the model
 * asked for them (tool and arguments, masked by the admin API), a tool message the tool whose
 * result it is, so a tool-call turn is never an empty box. `when` renders its time.
 */
export function messageItem(m, when) {
  const label = m.role === 'tool' ? `tool result · ${m.tool ?? 'a call'}` : m.role;
  const calls = m.toolCalls ?? [];
  return h('li', { class: `msg ${m.role}` },
    h('span', { class: 'role' }, `${label} · `, when(m.createdAt)),
    m.content ? h('div', { class: 'content' }, m.content) : null,
    calls.length
      ? h('ul', { class: 'calls plain', 'aria-label': `${calls.length} tool call${calls.length === 1 ? '' : 's'} asked for` }, calls.map((c) =>
          h('li', { class: 'call' }, 'called ', h('code', {}, c.name), h('pre', { class: 'code' }, typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments, null, 2)))))
      : null);
}

/** messages in the order given, each as messageItem shows it */
export function transcriptList(messages, when) {
  return h('ol', { class: 'transcript' }, messages.map((m) => messageItem(m, when)));
}
