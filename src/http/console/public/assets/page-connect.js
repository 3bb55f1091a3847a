import { api } from './api.js';
import { clear, field, h, notice } from './dom.js';

/**
 * An MCP client asking for access through herald's OAuth (platform.mcp.oauth): the person signed
 * in with the gateway token picks the API key whose agents and tools the client receives, or
 * denies; the browser then goes back to the client with its code (or access_denied).
 */
export function connectPage(root, { rest }) {
  const id = rest[0] ?? '';
  clear(root, h('h1', {}, 'Connect an MCP client'), h('p', { class: 'muted' }, 'Loading…'));
  const answer = async (body, status) => {
    try {
      const { redirectTo } = await api.post(`/mcp/authorizations/${encodeURIComponent(id)}`, body);
      clear(status, notice('Answered: back to the client…', 'good'));
      location.assign(redirectTo);
    } catch (error) {
      clear(status, notice(error.message, 'bad'));
    }
  };
  Promise.all([api.get(`/mcp/authorizations/${encodeURIComponent(id)}`), api.get('/keys')])
    .then(([request, { data: keys }]) => {
      const key = h('select', { name: 'key', required: true }, keys.map((k) => h('option', { value: k.name }, `${k.name} (${k.agents ? k.agents.join(', ') : 'all agents'})`)));
      const status = h('div', { class: 'status' });
      const host = (() => {
        try {
          return new URL(request.redirectUri).host;
        } catch {
          return request.redirectUri;
        }
      })();
      clear(
        root,
        h('h1', {}, 'Connect an MCP client'),
        h('p', { class: 'lead' }, h('strong', { id: 'client-name' }, request.client.name), ' asks to use herald\'s /mcp. It receives what the API key you pick may use: its agents, its tools, its approvals and budget; its calls are on the record under that key.'),
        h('p', { class: 'muted' }, `Client id ${request.client.id}; the answer goes back to ${host}.`),
        h('form', { class: 'filters', onsubmit: (e) => { e.preventDefault(); answer({ decision: 'allow', key: key.value }, status); } },
          field('API key', key),
          h('button', { type: 'submit', class: 'primary' }, 'Allow'),
          h('button', { type: 'button', class: 'danger', onclick: () => answer({ decision: 'deny' }, status) }, 'Deny'),
        ),
        status,
        keys.length ? null : notice('There is no API key to give: create one on the API keys page first.', 'bad'),
      );
    })
    .catch((error) => clear(root, h('h1', {}, 'Connect an MCP client'), notice(error.message, 'bad')));
  return {};
}
