import { api, qs } from './api.js';
import { clear, coalesced, field, h, notice, table } from './dom.js';
import { isoOf } from './list-filters.js';

const groups = [
  ['agent', 'Agent'],
  ['key', 'API key'],
  ['mapping', 'Mapping'],
  ['model', 'Model'],
];
const count = (n) => n.toLocaleString('en');

/** the tokens and cost every model call spent (GET /admin/usage), by agent, key, mapping or model, optionally per day */
export function usagePage(root, { params }) {
  const by = h('select', { name: 'by' }, groups.map(([value, label]) => h('option', { value }, label)));
  by.value = groups.some(([g]) => g === params.get('by')) ? params.get('by') : 'agent';
  const perDay = h('input', { type: 'checkbox', name: 'interval' });
  perDay.checked = params.get('interval') === 'day';
  const from = h('input', { type: 'datetime-local', name: 'since' });
  const to = h('input', { type: 'datetime-local', name: 'until' });
  const result = h('div', {});
  const load = async () => {
    try {
      const report = await api.get(`/usage${qs({ by: by.value, interval: perDay.checked ? 'day' : undefined, since: isoOf(from.value), until: isoOf(to.value, true) })}`);
      const label = groups.find(([g]) => g === report.by)[1];
      const total = report.data.reduce((n, r) => n + r.totalTokens, 0);
      clear(
        result,
        h('p', { class: 'lead' }, `${count(total)} tokens in ${count(report.data.reduce((n, r) => n + r.requests, 0))} calls.`),
        table(
          [
            ...(report.interval ? [{ label: 'Day', cell: (r) => r.day }] : []),
            { label, cell: (r) => r.group ?? '—' },
            { label: 'Calls', cell: (r) => count(r.requests) },
            { label: 'Prompt', cell: (r) => count(r.promptTokens) },
            { label: 'Completion', cell: (r) => count(r.completionTokens) },
            { label: 'Total', cell: (r) => count(r.totalTokens) },
            { label: 'Estimated', cell: (r) => (r.estimatedTokens ? count(r.estimatedTokens) : '—') },
            { label: 'Cost', cell: (r) => (r.cost ? r.cost.toFixed(4) : '—') },
          ],
          report.data,
          { empty: 'No model calls in this range.', caption: 'Usage' },
        ),
      );
    } catch (error) {
      clear(result, notice(error.message, 'bad'));
    }
  };
  for (const el of [by, perDay, from, to]) el.addEventListener('change', load);
  clear(
    root,
    h('h1', {}, 'Usage'),
    h('p', { class: 'lead' }, 'Tokens every chat completion, response, hook run, heartbeat and embedding spent, and their cost at models.prices. Estimated: counted by herald in words (the embedded model, a provider that sent no usage).'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), load()) }, field('Group by', by), field('Per day', perDay), field('From', from), field('To', to)),
    result,
  );
  load();
  return { refresh: coalesced(load), kinds: ['usage'] };
}
