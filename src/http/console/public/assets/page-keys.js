import { api } from './api.js';
import { clear, field, h, notice, table, timeCell } from './dom.js';

export function keysPage(root) {
  const name = h('input', { name: 'name', required: true, pattern: '[A-Za-z0-9._-]{1,64}', placeholder: 'ci-bot' });
  const agents = h('input', { name: 'agents', placeholder: 'all agents (or: support, sales)' });
  const shown = h('div', {});
  const list = h('div', {});
  const clients = h('div', {});
  const loadClients = async () => {
    const { data } = await api.get('/mcp/grants');
    clear(clients, data.length ? h('h2', {}, 'MCP clients connected through OAuth') : null, data.length ? table([
      { label: 'Client', cell: (g) => g.client.name },
      { label: 'Key', cell: (g) => g.key },
      { label: 'Consented', cell: (g) => timeCell(g.createdAt) },
      { label: 'Last refresh', cell: (g) => timeCell(g.refreshedAt) },
      { label: 'Actions', cell: (g) => h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!confirm(`Revoke ${g.client.name}'s access? Its tokens stop working at once.`)) return;
        await api.del(`/mcp/grants/${encodeURIComponent(g.id)}`);
        clear(shown, notice(`Revoked ${g.client.name}'s access.`, 'good'));
        loadClients();
      } }, 'Revoke') },
    ], data, { caption: 'MCP clients' }) : null);
  };
  const load = async () => {
    const { data } = await api.get('/keys');
    clear(list, table([
      { label: 'Name', cell: (k) => k.name },
      { label: 'Agents', cell: (k) => (k.agents ? k.agents.join(', ') : 'all') },
      { label: 'Created', cell: (k) => (k.createdAt ? timeCell(k.createdAt) : '—') },
      { label: 'Source', cell: (k) => (k.source === 'config' ? 'config file' : 'created') },
      { label: 'Actions', cell: (k) => (k.source === 'store' ? h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!confirm(`Revoke ${k.name}? Clients using it get 401 at once.`)) return;
        await api.del(`/keys/${encodeURIComponent(k.name)}`);
        clear(shown, notice(`Revoked ${k.name}.`, 'good'));
        load();
      } }, 'Revoke') : h('span', { class: 'muted' }, 'edit the config')) },
    ], data, { empty: 'No API keys.', caption: 'API keys' }));
  };
  const form = h(
    'form',
    { class: 'filters', onsubmit: async (e) => {
      e.preventDefault();
      try {
        const list = agents.value.split(',').map((s) => s.trim()).filter(Boolean);
        const created = await api.post('/keys', { name: name.value, ...(list.length && { agents: list }) });
        const key = h('input', { readonly: true, value: created.key, class: 'mono', 'aria-label': 'The new key', id: 'new-key' });
        clear(
          shown,
          h('div', { class: 'notice good', role: 'status' },
            h('p', {}, h('strong', {}, `Key ${created.name} created.`), ' Copy it now: it is shown this once and herald keeps only its hash.'),
            key,
            h('button', { type: 'button', onclick: async () => { await navigator.clipboard?.writeText(created.key).catch(() => {}); key.select(); } }, 'Copy'),
            h('button', { type: 'button', class: 'link', onclick: () => clear(shown) }, 'Done'),
          ),
        );
        key.select();
        name.value = '';
        load();
      } catch (error) {
        clear(shown, notice(error.message, 'bad'));
      }
    } },
    field('Name', name),
    field('Agents', agents),
    h('button', { type: 'submit', class: 'primary' }, 'Create key'),
  );
  clear(root, h('h1', {}, 'API keys'), h('p', { class: 'lead' }, 'Keys of the platform API (/v1). A new key is shown once.'), form, shown, list, clients);
  load();
  loadClients();
  return {};
}
