import { api, qs } from './api.js';
import { pagedList } from './paged.js';
import { badge, clear, coalesced, field, h, table, timeCell } from './dom.js';
import { transcriptList } from './transcript.js';
import { rangeAndSearch } from './list-filters.js';

const statuses = ['', 'pending', 'processing', 'done', 'dropped'];

export function sessionPage(root, { params }) {
  const turns = h('div', {});
  const status = h('select', { name: 'status' }, statuses.map((s) => h('option', { value: s }, s || 'any status')));
  const mapping = h('select', { name: 'mapping' }, h('option', { value: '' }, 'any mapping'));
  api.get('/mappings?action=wake&limit=1000').then((p) => mapping.append(...p.data.map((m) => h('option', { value: m.id }, m.id)))).catch(() => {});
  const range = rangeAndSearch({ params, placeholder: 'event text…', onChange: () => events.reset() });
  const events = pagedList(
    (cursor, limit) => api.get(`/events${qs({ session: 'main', status: status.value, mapping: mapping.value, ...range.values(), limit, cursor })}`),
    (rows) =>
      table(
        [
          { label: 'Created', cell: (e) => timeCell(e.createdAt) },
          { label: 'Status', cell: (e) => badge(e.status) },
          { label: 'Text', cell: (e) => e.text },
          // the stored flag, not the text: a summary of a run over outside content, read by the heartbeat as data
          { label: 'Trust', cell: (e) => (e.untrusted ? badge('untrusted') : '—') },
        ],
        rows,
        { empty: 'No events.', caption: 'Main session events' },
      ),
  );
  for (const el of [status, mapping]) el.addEventListener('change', () => events.reset());
  clear(
    root,
    h('h1', {}, 'Main session'),
    h('p', { class: 'lead' }, 'System events waiting for (or handled by) the heartbeat, and its turns.'),
    h('h2', {}, 'Event queue'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), events.reset()) }, field('Status', status), field('Mapping', mapping), range.fields, h('button', { type: 'submit' }, 'Filter')),
    events.elements,
    h('h2', {}, 'Heartbeat turns'),
    turns,
  );
  const load = async () => {
    const messages = await api.get('/sessions/main/messages?limit=100');
    clear(turns, messages.data.length
      ? transcriptList(messages.data.slice().reverse(), timeCell)
      : h('p', { class: 'empty' }, 'No heartbeat turns yet.'));
    await events.reload();
  };
  load();
  return { refresh: coalesced(load), kinds: ['events', 'sessions'] };
}
