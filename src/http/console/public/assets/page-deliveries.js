import { api, qs } from './api.js';
import { pagedList } from './paged.js';
import { absTime, badge, clear, coalesced, field, h, idChip, json, notice, runRef, table, timeCell } from './dom.js';
import { rangeAndSearch } from './list-filters.js';

const statuses = ['', 'pending', 'sending', 'delivered', 'failed', 'abandoned'];

export function deliveriesPage(root, { rest, params }) {
  if (rest[0]) return deliveryDetail(root, rest[0]);
  const status = h('select', { name: 'status' }, statuses.map((s) => h('option', { value: s }, s || 'any status')));
  status.value = params.get('status') ?? '';
  const channel = h('input', { type: 'search', name: 'channel', placeholder: 'telegram, slack…', size: 12 });
  channel.value = params.get('channel') ?? '';
  const mapping = h('select', { name: 'mapping' }, h('option', { value: '' }, 'any mapping'));
  api.get('/mappings?limit=1000').then((p) => mapping.append(...p.data.map((m) => h('option', { value: m.id }, m.id)))).catch(() => {});
  const range = rangeAndSearch({ params, placeholder: 'id, run, channel, recipient…', onChange: () => list.reset() });
  const error = h('input', { type: 'search', name: 'error', placeholder: 'chat not found…', size: 14, maxlength: 200 });
  const message = h('div', {});
  // every failed delivery the filters match (channel, mapping, time range, error text): counted
  // first (dryRun), the count confirmed, then retried or abandoned in one request
  const bulk = (action, label, klass) =>
    h('button', { type: 'button', class: klass, 'data-bulk': action, onclick: async () => {
      const { since, until } = range.values();
      const filter = { channel: channel.value.trim() || undefined, mapping: mapping.value || undefined, since, until, error: error.value.trim() || undefined };
      try {
        const { count } = await api.post(`/deliveries/${action}`, { ...filter, dryRun: true });
        if (count === 0) return clear(message, notice('No failed delivery matches these filters.', 'info'));
        if (!confirm(`${label} ${count} failed deliver${count === 1 ? 'y' : 'ies'} matching these filters?`)) return;
        const done = await api.post(`/deliveries/${action}`, filter);
        clear(message, notice(`${label}: ${done.count} deliver${done.count === 1 ? 'y' : 'ies'}`, 'good'));
        list.reload();
      } catch (e) {
        clear(message, notice(e.message, 'bad'));
      }
    } }, `${label} all failed…`);
  const act = (label, path, klass) =>
    h('button', { type: 'button', class: klass, onclick: async () => {
      try {
        const d = await api.post(path);
        clear(message, notice(`${label}: the delivery to ${d.channel ?? 'no channel'} is ${d.status}`, 'good'));
        list.reload();
      } catch (error) {
        clear(message, notice(error.message, 'bad'));
      }
    } }, label);
  const list = pagedList(
    (cursor, limit) => api.get(`/deliveries${qs({ status: status.value, channel: channel.value.trim(), mapping: mapping.value, run: params.get('run') ?? undefined, ...range.values(), limit, cursor })}`),
    (rows) =>
      table([
        { label: 'Reply of', cell: (d) => (d.run ? runRef(d.run) : d.runId ? h('a', { href: `#/runs/${encodeURIComponent(d.runId)}` }, idChip(d.runId)) : d.kind) },
        { label: 'Delivery', cell: (d) => h('span', { class: 'ref' }, h('a', { href: `#/deliveries/${encodeURIComponent(d.id)}` }, d.channel ?? 'no channel'), idChip(d.id)) },
        { label: 'Created', cell: (d) => timeCell(d.createdAt) },
        { label: 'To', cell: (d) => d.to ?? '—' },
        { label: 'Status', cell: (d) => badge(d.status) },
        { label: 'Attempts', cell: (d) => String(d.attempts) },
        { label: 'Last error', cell: (d) => d.lastError ?? '—' },
        { label: 'Fallback of', cell: (d) => (d.fallbackOf ? h('a', { href: `#/deliveries/${encodeURIComponent(d.fallbackOf)}` }, idChip(d.fallbackOf)) : '—') },
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
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) }, field('Status', status), field('Channel', channel), field('Mapping', mapping), field('Error', error), range.fields, h('button', { type: 'submit' }, 'Filter')),
    h('div', { class: 'actions bulk' }, bulk('retry', 'Retry', 'primary'), bulk('abandon', 'Abandon', 'danger')),
    params.get('run') ? h('p', {}, 'The deliveries of run ', h('a', { href: `#/runs/${encodeURIComponent(params.get('run'))}` }, h('code', {}, params.get('run'))), ' · ', h('a', { href: '#/deliveries' }, 'all deliveries')) : null,
    message,
    list.elements,
  );
  list.reload();
  return { refresh: coalesced(list.reload), kinds: ['deliveries'] };
}

/** one delivery and its fallback chain: the reply's first delivery, then each one that replaced the one before */
function deliveryDetail(root, id) {
  const body = h('div', {});
  clear(root, h('p', {}, h('a', { href: '#/deliveries' }, '← Deliveries')), h('h1', {}, 'Delivery ', h('code', {}, id)), body);
  const load = async () => {
    const d = await api.get(`/deliveries/${encodeURIComponent(id)}`);
    clear(
      body,
      h('p', {}, badge(d.status), ' ', d.channel ?? 'no channel', d.to ? ` → ${d.to}` : '', ` · ${d.attempts} attempt(s)`, d.lastError ? ` · ${d.lastError}` : ''),
      d.runId ? h('p', {}, 'Reply of run ', h('a', { href: `#/runs/${encodeURIComponent(d.runId)}` }, h('code', {}, d.runId))) : null,
      h('p', {}, 'Created ', absTime(d.createdAt), d.deliveredAt ? [' · delivered ', absTime(d.deliveredAt)] : null),
      h('h2', {}, 'Fallback chain'),
      h('ol', { class: 'chain' },
        d.chain.map((c) =>
          h('li', { 'data-delivery': c.id, ...(c.id === d.id && { 'aria-current': 'true' }) },
            c.id === d.id ? h('strong', {}, c.channel ?? 'no channel') : h('a', { href: `#/deliveries/${encodeURIComponent(c.id)}` }, c.channel ?? 'no channel'),
            c.to ? ` → ${c.to} ` : ' ', badge(c.status), c.lastError && c.status !== 'delivered' ? ` · ${c.lastError}` : '')),
      ),
      h('details', {}, h('summary', {}, 'As the outbox records it'), json(d)),
    );
  };
  load().catch((e) => clear(body, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['deliveries'] };
}
