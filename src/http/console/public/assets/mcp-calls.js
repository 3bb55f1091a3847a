import { api } from './api.js';
import { badge, clear, elapsed, h, idChip, notice, table, timeCell } from './dom.js';

// The calls MCP clients made through /mcp (GET /admin/mcp/calls), beside the agents' runs: each
// named by its client (name and version from initialize) and the API key it connected with. A
// call's page is its approval's page, which shows a call whether or not it needed a person.

/** "probe-client 1.2.3", or why the client is not named */
export const clientText = (client) => (client ? `${client.name} ${client.version}` : 'client no longer known');

export function mcpCallsTable(calls) {
  return table(
    [
      { label: 'Tool', cell: (c) => h('span', { class: 'ref' }, h('a', { href: `#/approvals/${encodeURIComponent(c.id)}` }, `${c.server} / ${c.tool}`), idChip(c.id)) },
      { label: 'Client', cell: (c) => h('span', { 'data-mcp-client': '' }, clientText(c.client)) },
      { label: 'Key', cell: (c) => h('code', {}, c.client?.key ?? c.keyName ?? '—') },
      { label: 'Status', cell: (c) => badge(c.status) },
      { label: 'Called', cell: (c) => timeCell(c.createdAt) },
      { label: 'Took', cell: (c) => elapsed(c.durationMs) },
      { label: 'Session', cell: (c) => idChip(c.sessionId) },
    ],
    calls,
    { empty: 'No calls from MCP clients yet.', caption: 'Calls from MCP clients' },
  );
}

/** the section of the Runs page: reloads with it (a call's record tells the console as a run's does) */
export function mcpCallsSection() {
  const body = h('div', {});
  // hidden until a client has made a call: a gateway that never serves /mcp keeps its Runs page as it was
  const section = h('section', { 'aria-label': 'Calls from MCP clients', hidden: '' }, h('h2', {}, 'Calls from MCP clients'), body);
  const load = async () => {
    try {
      const calls = (await api.get('/mcp/calls?limit=50')).data;
      section.hidden = calls.length === 0;
      clear(body, mcpCallsTable(calls));
    } catch (error) {
      section.hidden = false;
      clear(body, notice(error.message, 'bad'));
    }
  };
  return { section, load };
}
