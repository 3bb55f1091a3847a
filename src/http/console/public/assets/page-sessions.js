import { api, qs } from './api.js';
import { pagedList } from './paged.js';
import { runsTable } from './page-runs.js';
import { absTime, clear, coalesced, field, h, notice, table, timeCell } from './dom.js';
import { transcriptList } from './transcript.js';
import { agentFilter, rangeAndSearch } from './list-filters.js';

const kinds = [
  ['', 'any kind'],
  ['hook:', 'hook runs (hook:)'],
  ['chat:', 'chats (chat:)'],
  ['main', 'main session'],
];

/** Every session with messages, most recently active first, by agent; a session opens to its runs and messages. */
export function sessionsPage(root, { rest, params }) {
  if (rest[0]) return sessionDetail(root, rest[0]);
  const agent = agentFilter(params);
  const kind = h('select', { name: 'prefix' }, kinds.map(([v, label]) => h('option', { value: v }, label)));
  const range = rangeAndSearch({ params, placeholder: 'key, agent…', onChange: () => list.reset() });
  const list = pagedList(
    (cursor, limit) => api.get(`/sessions${qs({ agent: agent.value, prefix: kind.value, ...range.values(), limit, cursor })}`),
    (rows) =>
      table(
        [
          { label: 'Session', cell: (s) => h('a', { href: `#/sessions/${encodeURIComponent(s.key)}` }, h('code', {}, s.key)) },
          { label: 'Last active', cell: (s) => timeCell(s.lastAt) },
          { label: 'Agent', cell: (s) => s.agentId },
          { label: 'Messages', cell: (s) => String(s.messages) },
          { label: 'Started', cell: (s) => timeCell(s.firstAt) },
        ],
        rows,
        { empty: 'No sessions match.', caption: 'Sessions' },
      ),
  );
  for (const el of [agent, kind]) el.addEventListener('change', () => list.reset());
  clear(
    root,
    h('h1', {}, 'Sessions'),
    h('p', { class: 'lead' }, 'Conversations with messages: hook runs, chats and the main session. A session belongs to the agent of its first message.'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) }, field('Agent', agent), field('Kind', kind), range.fields, h('button', { type: 'submit' }, 'Filter')),
    list.elements,
  );
  list.reload();
  return { refresh: coalesced(list.reload), kinds: ['sessions'] };
}

function sessionDetail(root, key) {
  const summary = h('div', {});
  const messages = h('div', {});
  const runs = pagedList((cursor, limit) => api.get(`/runs${qs({ session: key, limit, cursor })}`), (rows) => runsTable(rows, 'No runs in this session (a chat, or the main session).'));
  clear(
    root,
    h('p', {}, h('a', { href: '#/sessions' }, '← Sessions')),
    h('h1', {}, 'Session ', h('code', {}, key)),
    summary,
    h('h2', {}, 'Runs'),
    runs.elements,
    h('h2', {}, 'Messages'),
    messages,
  );
  const load = async () => {
    const [found, transcript] = await Promise.all([api.get(`/sessions${qs({ q: key, limit: 1000 })}`), api.get(`/sessions/${encodeURIComponent(key)}/messages?limit=200`)]);
    const s = found.data.find((x) => x.key === key);
    clear(
      summary,
      s
        ? h('dl', { class: 'facts' }, [['Agent', s.agentId], ['Messages', String(s.messages)], ['Started', absTime(s.firstAt)], ['Last active', absTime(s.lastAt)]].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))
        : notice('No messages in this session yet.'),
    );
    clear(
      messages,
      transcript.data.length
        ? transcriptList(transcript.data, absTime)
        : h('p', { class: 'empty' }, 'No messages.'),
    );
    await runs.reload();
  };
  load().catch((e) => clear(summary, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['sessions', 'runs'] };
}
