import { api, qs } from './api.js';
import { pagedList } from './paged.js';
import { clear, coalesced, field, h, table, timeCell } from './dom.js';
import { rangeAndSearch } from './list-filters.js';

const conditions = ['', 'delivery.failed', 'runs.failing', 'source.silent', 'queue.stale', 'outbox.stale', 'watcher.unhealthy', 'tools.unhealthy', 'store.unreachable', 'budget.exceeded', 'schedule.failing', 'schedule.missed'];

/** the incidents the alert rules raised: open ones first to the eye (their badge), newest first */
export function alertsPage(root, { params }) {
  const status = h('select', { name: 'status' }, ['', 'open', 'resolved'].map((s) => h('option', { value: s }, s || 'any status')));
  status.value = params.get('status') ?? '';
  const condition = h('select', { name: 'condition' }, conditions.map((c) => h('option', { value: c }, c || 'any condition')));
  condition.value = params.get('condition') ?? '';
  const range = rangeAndSearch({ params, placeholder: 'mapping, channel, text…', onChange: () => list.reset() });
  const list = pagedList(
    (cursor, limit) => api.get(`/alerts${qs({ status: status.value, condition: condition.value, ...range.values(), limit, cursor })}`),
    (rows) =>
      table([
        { label: 'Raised', cell: (a) => timeCell(a.raisedAt) },
        { label: 'Condition', cell: (a) => a.condition },
        { label: 'Subject', cell: (a) => a.subject },
        { label: 'Status', cell: (a) => h('span', { class: `badge ${a.status === 'open' ? 'bad' : 'good'}` }, a.status) },
        { label: 'Sent', cell: (a) => (a.notified ? 'yes' : 'no (cooldown)') },
        { label: 'Resolved', cell: (a) => (a.resolvedAt ? timeCell(a.resolvedAt) : '—') },
        { label: 'What happened', cell: (a) => a.summary },
      ], rows, { empty: 'No alerts.', caption: 'Alerts' }),
  );
  for (const el of [status, condition]) el.addEventListener('change', () => list.reset());
  clear(
    root,
    h('h1', {}, 'Alerts'),
    h('p', { class: 'lead' }, 'Incidents the alert rules raised (alerts in the config): what, since when, whether it was sent, and when it cleared.'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) }, field('Status', status), field('Condition', condition), range.fields, h('button', { type: 'submit' }, 'Filter')),
    list.elements,
  );
  list.reload();
  // the store tells when an alert opens or resolves (on any replica): the page follows that alone
  return { refresh: coalesced(list.reload), kinds: ['alerts'] };
}
