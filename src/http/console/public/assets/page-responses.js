import { api, qs } from './api.js';
import { absTime, badge, clear, coalesced, field, h, notice, table, timeCell } from './dom.js';
import { transcriptList } from './transcript.js';
import { agentFilter } from './list-filters.js';

const tokens = (u) => `${u.total_tokens} (${u.prompt_tokens} in, ${u.completion_tokens} out)`;

/** The stored Responses API responses, newest first, by agent; a response opens to its transcript with its tool calls. */
export function responsesPage(root, { rest, params }) {
  if (rest[0]) return responseDetail(root, rest[0]);
  const agent = agentFilter(params);
  const rows = h('div', {});
  const load = async () => {
    const found = await api.get(`/responses${qs({ agent: agent.value, limit: 200 })}`);
    clear(
      rows,
      table(
        [
          { label: 'Response', cell: (r) => h('a', { href: `#/responses/${encodeURIComponent(r.id)}` }, h('code', {}, r.id)) },
          { label: 'Created', cell: (r) => timeCell(r.createdAt) },
          { label: 'Agent', cell: (r) => r.agentId },
          { label: 'Tools', cell: (r) => (r.paused ? badge('paused') : r.toolCalls ? `${r.toolCalls} call${r.toolCalls === 1 ? '' : 's'}` : '—') },
          { label: 'Answer', cell: (r) => r.output },
          { label: 'Tokens', cell: (r) => String(r.usage.total_tokens) },
        ],
        found.data,
        { empty: 'No stored responses.', caption: 'Responses' },
      ),
    );
  };
  agent.addEventListener('change', () => load().catch((e) => clear(rows, notice(e.message, 'bad'))));
  clear(
    root,
    h('h1', {}, 'Responses'),
    h('p', { class: 'lead' }, 'Responses API answers herald stored (store: true), newest 200 first. One opens to its input, the tool calls its model made and their results, and its answer.'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), load()) }, field('Agent', agent), h('button', { type: 'submit' }, 'Filter')),
    rows,
  );
  load().catch((e) => clear(rows, notice(e.message, 'bad')));
  // a new response records its model call's usage: no change kind of its own
  return { refresh: coalesced(load), kinds: ['usage'] };
}

function responseDetail(root, id) {
  const summary = h('div', {});
  const messages = h('div', {});
  clear(root, h('p', {}, h('a', { href: '#/responses' }, '← Responses')), h('h1', {}, 'Response ', h('code', {}, id)), summary, h('h2', {}, 'Transcript'), messages);
  const load = async () => {
    const r = await api.get(`/responses/${encodeURIComponent(id)}`);
    const facts = [
      ['Agent', r.agentId],
      ['Created', absTime(r.createdAt)],
      ['Continues', r.previousResponseId ? h('a', { href: `#/responses/${encodeURIComponent(r.previousResponseId)}` }, h('code', {}, r.previousResponseId)) : '—'],
      ['Tool calls', r.paused ? 'waiting for the client\'s approval' : String(r.toolCalls)],
      ['Tokens', tokens(r.usage)],
    ];
    clear(summary, h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])));
    clear(messages, r.transcript.length ? transcriptList(r.transcript, absTime) : h('p', { class: 'empty' }, 'No messages.'));
  };
  load().catch((e) => clear(summary, notice(e.message, 'bad')));
  // a stored response does not change (a paused one is continued by a new response)
  return { refresh: coalesced(load), kinds: [] };
}
