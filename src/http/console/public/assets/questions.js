import { api } from './api.js';
import { absTime, badge, clear, h, idChip, notice, table, timeCell } from './dom.js';

/**
 * Questions tool servers ask a person during a hook run's call (MCP elicitation), shown beside the
 * approvals: the server's message (its words, not herald's), a form drawn from its schema with the
 * defaults filled in (or the page to open), and Accept, Decline, Cancel.
 */
export function questionRows(questions, status, after) {
  return table(
    [
      { label: 'Asked', cell: (q) => timeCell(q.createdAt) },
      { label: 'Server', cell: (q) => h('a', { href: `#/approvals/${encodeURIComponent(q.id)}` }, q.server) },
      { label: 'Agent', cell: (q) => q.agentId },
      { label: 'Run', cell: (q) => (q.ownerKind === 'run' ? h('a', { href: `#/runs/${encodeURIComponent(q.ownerId)}` }, idChip(q.ownerId)) : [`${q.ownerKind} `, idChip(q.ownerId)]) },
      { label: 'Question (the server\'s words)', cell: (q) => h('blockquote', { class: 'server-text' }, q.message) },
      { label: 'Expires', cell: (q) => timeCell(q.expiresAt) },
      { label: 'Answer', cell: (q) => answerForm(q, status, after) },
    ],
    questions,
    { empty: 'No server asks anything.', caption: "Tool servers' questions" },
  );
}

/** one question (the link in its notice): pending with its form, or how it was answered */
export function questionDetail(body, q, reload) {
  const status = h('div', {});
  clear(
    body,
    h('h1', {}, `Question from ${q.server}`),
    status,
    h('blockquote', { class: 'server-text' }, q.message),
    q.status === 'pending' ? answerForm(q, status, reload) : null,
    h(
      'dl',
      { class: 'facts' },
      [
        ['Status', badge(q.status)],
        ['Answered by', q.answeredBy ?? '—'],
        ['Answer', q.content ? h('pre', {}, JSON.stringify(q.content, null, 2)) : '—'],
        ['Agent', q.agentId],
        ['Run', q.ownerKind === 'run' ? h('a', { href: `#/runs/${encodeURIComponent(q.ownerId)}` }, q.ownerId) : `${q.ownerKind} ${q.ownerId}`],
        ['Tool call', q.toolCallId],
        ['Asked', absTime(q.createdAt)],
        ['Expires', absTime(q.expiresAt)],
      ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
  );
}

/** the form of the question's schema (or its page), with Accept, Decline and Cancel */
function answerForm(q, status, after) {
  const fields = q.mode === 'form' ? Object.entries(q.requestedSchema?.properties ?? {}).map(([name, schema]) => field(name, schema, (q.requestedSchema.required ?? []).includes(name))) : [];
  const answer = async (action) => {
    const body = { action };
    if (action === 'accept' && q.mode === 'form') body.content = Object.fromEntries(fields.map((f) => [f.name, f.value()]).filter(([, v]) => v !== undefined));
    try {
      const answered = await api.post(`/approvals/${encodeURIComponent(q.id)}/answer`, body);
      clear(status, notice(`Answered ${q.server}'s question: ${answered.status}.`, 'good'));
    } catch (error) {
      clear(status, notice(error.message, 'bad'));
    }
    await after();
  };
  return h(
    'form',
    { class: 'question', onsubmit: (e) => (e.preventDefault(), answer('accept')) },
    q.mode === 'url' ? h('p', {}, 'Open ', h('a', { href: q.url, target: '_blank', rel: 'noopener noreferrer' }, q.url), ', then accept.') : null,
    fields.map((f) => f.element),
    h('button', { type: 'submit', class: 'primary', 'aria-label': `Accept ${q.server}'s question` }, 'Accept'),
    h('button', { type: 'button', class: 'danger', onclick: () => answer('decline') }, 'Decline'),
    h('button', { type: 'button', onclick: () => answer('cancel') }, 'Cancel'),
  );
}

/** one field of the server's flat schema (MCP's primitive types: string with enum or format, number, integer, boolean, multi-select) */
function field(name, schema, required) {
  const label = schema.title ?? name;
  const hint = schema.description ? h('small', {}, schema.description) : null;
  const options = schema.enum ?? schema.oneOf?.map((o) => o.const);
  let input;
  let value;
  if (schema.type === 'boolean') {
    input = h('input', { type: 'checkbox', name, checked: schema.default === true });
    value = () => input.checked;
  } else if (schema.type === 'array') {
    const choices = schema.items?.enum ?? schema.items?.anyOf?.map((o) => o.const) ?? [];
    input = h('select', { name, multiple: true }, choices.map((c) => h('option', { value: c, selected: (schema.default ?? []).includes(c) }, c)));
    value = () => [...input.selectedOptions].map((o) => o.value);
  } else if (options) {
    input = h('select', { name, required }, required ? null : h('option', { value: '' }, '—'), options.map((c) => h('option', { value: c, selected: schema.default === c }, c)));
    value = () => (input.value === '' ? undefined : input.value);
  } else if (schema.type === 'number' || schema.type === 'integer') {
    input = h('input', { type: 'number', name, required, step: schema.type === 'integer' ? 1 : 'any', min: schema.minimum, max: schema.maximum, value: schema.default });
    value = () => (input.value === '' ? undefined : Number(input.value));
  } else {
    const type = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' }[schema.format] ?? 'text';
    input = h('input', { type, name, required, minlength: schema.minLength, maxlength: schema.maxLength, value: schema.default });
    value = () => (input.value === '' ? undefined : input.value);
  }
  return { name, value, element: h('label', {}, `${label}${required ? ' *' : ''} `, input, hint) };
}
