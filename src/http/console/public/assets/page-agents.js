import { api } from './api.js';
import { clear, h, table } from './dom.js';

export function agentsPage(root) {
  const list = h('div', {});
  clear(root, h('h1', {}, 'Agents'), h('p', { class: 'lead' }, 'The digital employees (agents.list).'), list);
  api.get('/agents').then(({ data, defaultAgentId }) =>
    clear(list, table([
      { label: 'Id', cell: (a) => h('code', { class: 'nowrap' }, a.id) },
      { label: 'Name', cell: (a) => a.name ?? '—' },
      { label: 'Model', cell: (a) => h('code', { class: 'nowrap' }, a.model) },
      { label: 'Documents', cell: (a) => h('a', { href: `#/knowledge?agent=${encodeURIComponent(a.id)}` }, String(a.documents)) },
      { label: 'Runs hooks', cell: (a) => hooksCell(a, defaultAgentId) },
      { label: 'Retrieval', cell: (a) => (a.retrieval === 'hybrid' ? 'hybrid (full text + vectors)' : 'full text (BM25)') },
      { label: 'Budget', cell: (a) => [a.budget?.tokensPerDay && `${a.budget.tokensPerDay.toLocaleString('en')} tokens/day`, a.budget?.costPerMonth && `${a.budget.costPerMonth}/month`].filter(Boolean).join(', ') || '—' },
      { label: 'Description', cell: (a) => a.description ?? '—' },
    ], data, { caption: 'Agents' })),
  );
  return {};
}

/**
 * What "runs hooks" means: the default agent runs every hook run whose mapping names no agent
 * (and the heartbeats); another agent runs only the hooks whose mapping or request names it.
 */
function hooksCell(a, defaultAgentId) {
  if (!a.hooksAllowed) return h('span', { class: 'hooks' }, h('strong', {}, 'no'), ' — hooks.allowedAgentIds does not list it: no hook run goes to it');
  if (a.runsHooks) return h('span', { class: 'hooks' }, h('strong', {}, 'yes'), ' — the default agent: hook runs that name no agent (agentId) go to it, and the heartbeats');
  return h('span', { class: 'hooks' }, h('strong', {}, 'only when named'), ' — hook runs whose mapping names it (agentId); the others go to the default agent ', h('code', {}, defaultAgentId));
}
