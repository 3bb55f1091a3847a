import { api, qs } from './api.js';
import { pagedList } from './paged.js';
import { badge, clear, coalesced, field, h, notice, table, time } from './dom.js';
import { rangeAndSearch } from './list-filters.js';

const statuses = ['', 'pending', 'sending', 'delivered', 'failed', 'abandoned'];

export function deliveriesPage(root, { params }) {
  const status = h('select', { name: 'status' }, statuses.map((s) => h('option', { value: s }, s || 'any status')));
  status.value = params.get('status') ?? '';
  const channel = h('input', { type: 'search', name: 'channel', placeholder: 'telegram, slack…', size: 12 });
  channel.value = params.get('channel') ?? '';
  const mapping = h('select', { name: 'mapping' }, h('option', { value: '' }, 'any mapping'));
  api.get('/mappings?limit=1000').then((p) => mapping.append(...p.data.map((m) => h('option', { value: m.id }, m.id)))).catch(() => {});
  const range = rangeAndSearch({ params, placeholder: 'id, run, channel, recipient…', onChange: () => list.reset() });
  const message = h('div', {});
  const act = (label, path, klass) =>
    h('button', { type: 'button', class: klass, onclick: async () => {
      try {
        const d = await api.post(path);
        clear(message, notice(`${label}: delivery ${d.id.slice(0, 8)} is ${d.status}`, 'good'));
        list.reload();
      } catch (error) {
        clear(message, notice(error.message, 'bad'));
      }
    } }, label);
  const list = pagedList(
    (cursor, limit) => api.get(`/deliveries${qs({ status: status.value, channel: channel.value.trim(), mapping: mapping.value, run: params.get('run') ?? undefined, ...range.values(), limit, cursor })}`),
    (rows) =>
      table([
        { label: 'Created', cell: (d) => time(d.createdAt) },
        { label: 'Channel', cell: (d) => d.channel ?? '—' },
        { label: 'To', cell: (d) => d.to ?? '—' },
        { label: 'Status', cell: (d) => badge(d.status) },
        { label: 'Attempts', cell: (d) => String(d.attempts) },
        { label: 'Last error', cell: (d) => d.lastError ?? '—' },
        { label: 'Run', cell: (d) => (d.runId ? h('a', { href: `#/runs/${encodeURIComponent(d.runId)}` }, d.runId.slice(0, 8)) : d.kind) },
        { label: 'Actions', cell: (d) => [
          d.status === 'failed' ? act('Retry', `/deliveries/${encodeURIComponent(d.id)}/retry`, 'primary') : null,
          d.status === 'failed' || d.status === 'pending' ? act('Abandon', `/deliveries/${encodeURIComponent(d.id)}/abandon`, 'danger') : null,
        ] },
      ], rows, { empty: 'No deliveries.', caption: 'Deliveries' }),
  );
  for (const el of [status, mapping]) el.addEventListener('change', () => list.reset());
  clear(
    root,
    h('h1', {}, 'Deliveries'),
    h('p', { class: 'lead' }, 'Replies on their way to chat channels: attempts, errors; retry or abandon.'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) }, field('Status', status), field('Channel', channel), field('Mapping', mapping), range.fields, h('button', { type: 'submit' }, 'Filter')),
    params.get('run') ? h('p', {}, 'The deliveries of run ', h('a', { href: `#/runs/${encodeURIComponent(params.get('run'))}` }, params.get('run').slice(0, 8)), ' · ', h('a', { href: '#/deliveries' }, 'all deliveries')) : null,
    message,
    list.elements,
  );
  list.reload();
  return { refresh: coalesced(list.reload), kinds: ['deliveries'] };
}
