import { api, qs } from './api.js';
import { badge, clear, coalesced, field, h, notice, table, time } from './dom.js';

const statuses = ['', 'pending', 'sending', 'delivered', 'failed', 'abandoned'];

export function deliveriesPage(root, { params }) {
  const status = h('select', { name: 'status' }, statuses.map((s) => h('option', { value: s }, s || 'any status')));
  status.value = params.get('status') ?? '';
  const channel = h('input', { type: 'search', name: 'channel', placeholder: 'telegram, slack…' });
  const list = h('div', {});
  const message = h('div', {});
  const act = (label, path, klass) =>
    h('button', { type: 'button', class: klass, onclick: async () => {
      try {
        const d = await api.post(path);
        clear(message, notice(`${label}: delivery ${d.id.slice(0, 8)} is ${d.status}`, 'good'));
        load();
      } catch (error) {
        clear(message, notice(error.message, 'bad'));
      }
    } }, label);
  const load = async () => {
    const page = await api.get(`/deliveries${qs({ status: status.value, channel: channel.value, limit: 100 })}`);
    clear(list, table([
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
    ], page.data, { empty: 'No deliveries.', caption: 'Deliveries' }));
  };
  status.addEventListener('change', load);
  clear(
    root,
    h('h1', {}, 'Deliveries'),
    h('p', { class: 'lead' }, 'Replies on their way to chat channels: attempts, errors; retry or abandon.'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), load()) }, field('Status', status), field('Channel', channel), h('button', { type: 'submit' }, 'Filter')),
    message,
    list,
  );
  load();
  return { refresh: coalesced(load), kinds: ['deliveries'] };
}
