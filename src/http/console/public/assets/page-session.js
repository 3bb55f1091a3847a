import { api } from './api.js';
import { badge, clear, coalesced, h, table, time } from './dom.js';

export function sessionPage(root) {
  const events = h('div', {});
  const turns = h('div', {});
  clear(root, h('h1', {}, 'Main session'), h('p', { class: 'lead' }, 'System events waiting for (or handled by) the heartbeat, and its turns.'), h('h2', {}, 'Event queue'), events, h('h2', {}, 'Heartbeat turns'), turns);
  const load = async () => {
    const [list, messages] = await Promise.all([api.get('/events?session=main&limit=100'), api.get('/sessions/main/messages?limit=100')]);
    clear(events, table([
      { label: 'Created', cell: (e) => time(e.createdAt) },
      { label: 'Status', cell: (e) => badge(e.status) },
      { label: 'Text', cell: (e) => e.text },
    ], list.data, { empty: 'No events.', caption: 'Main session events' }));
    clear(turns, messages.data.length
      ? h('ol', { class: 'transcript' }, messages.data.slice().reverse().map((m) => h('li', { class: `msg ${m.role}` }, h('span', { class: 'role' }, `${m.role} · `, time(m.createdAt)), h('div', { class: 'content' }, m.content))))
      : h('p', { class: 'empty' }, 'No heartbeat turns yet.'));
  };
  load();
  return { refresh: coalesced(load), kinds: ['events', 'sessions'] };
}
