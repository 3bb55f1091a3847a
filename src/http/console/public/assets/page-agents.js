import { api } from './api.js';
import { clear, h, table } from './dom.js';

export function agentsPage(root) {
  const list = h('div', {});
  clear(root, h('h1', {}, 'Agents'), h('p', { class: 'lead' }, 'The digital employees (agents.list).'), list);
  api.get('/agents').then(({ data }) =>
    clear(list, table([
      { label: 'Id', cell: (a) => h('code', {}, a.id) },
      { label: 'Name', cell: (a) => a.name ?? '—' },
      { label: 'Model', cell: (a) => h('code', {}, a.model) },
      { label: 'Documents', cell: (a) => h('a', { href: `#/knowledge?agent=${encodeURIComponent(a.id)}` }, String(a.documents)) },
      { label: 'Runs hooks', cell: (a) => (a.runsHooks ? 'yes' : 'no') },
      { label: 'Retrieval', cell: (a) => (a.retrieval === 'hybrid' ? 'hybrid (full text + vectors)' : 'full text (BM25)') },
      { label: 'Budget', cell: (a) => [a.budget?.tokensPerDay && `${a.budget.tokensPerDay.toLocaleString('en')} tokens/day`, a.budget?.costPerMonth && `${a.budget.costPerMonth}/month`].filter(Boolean).join(', ') || '—' },
      { label: 'Description', cell: (a) => a.description ?? '—' },
    ], data, { caption: 'Agents' })),
  );
  return {};
}
