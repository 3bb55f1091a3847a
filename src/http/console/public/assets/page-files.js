import { api, qs } from './api.js';
import { badge, clear, coalesced, field, h, idChip, notice, table, timeCell } from './dom.js';

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
const agentsOf = (agents) => (agents ? agents.join(', ') : 'every agent');

/** a vector store's files by status, as OpenAI's file_counts: "2 completed · 1 failed" */
function countsCell(c) {
  const parts = ['completed', 'in_progress', 'failed', 'cancelled'].filter((s) => c[s] > 0).map((s) => `${c[s]} ${s.replace('_', ' ')}`);
  return h('span', { class: 'counts', title: `${c.total} file(s)` }, parts.length ? parts.join(' · ') : 'no files');
}

function storeFiles(v) {
  if (!v.files.length) return h('span', { class: 'muted' }, '—');
  return h('details', {}, h('summary', {}, `${v.files.length} file${v.files.length === 1 ? '' : 's'}`),
    h('ul', { class: 'plain' }, v.files.map((f) => h('li', { 'data-file': f.fileId },
      f.filename ?? h('span', { class: 'muted' }, '(deleted)'), ' ', badge(f.status), ' ', bytes(f.bytes), f.lastError ? ` · ${f.lastError.message}` : '', ' ', idChip(f.fileId)))));
}

/**
 * The files uploaded through /v1/files and the vector stores made through /v1/vector_stores,
 * every API key's: an agent's own knowledge is on the Knowledge page.
 */
export function filesPage(root, { params }) {
  const q = h('input', { type: 'search', name: 'q', placeholder: 'name or id…', maxlength: 200 });
  q.value = params.get('q') ?? '';
  const files = h('div', {});
  const stores = h('div', {});
  const load = async () => {
    const [f, v] = await Promise.all([api.get(`/files${qs({ q: q.value.trim(), limit: 500 })}`), api.get(`/vector-stores${qs({ q: q.value.trim(), limit: 500 })}`)]);
    const storeNames = new Map(v.data.map((x) => [x.id, x.name || x.id]));
    clear(files,
      f.total > f.data.length ? h('p', { class: 'muted' }, `The newest ${f.data.length} of ${f.total}.`) : null,
      table([
        { label: 'Name', cell: (x) => h('span', { class: 'ref' }, h('strong', {}, x.filename), idChip(x.id)) },
        { label: 'Bytes', cell: (x) => bytes(x.bytes) },
        { label: 'Purpose', cell: (x) => x.purpose },
        { label: 'Status', cell: (x) => [badge(x.status), ...x.vectorStores.map((s) => h('span', { class: 'tag', title: `${s.status} in ${s.id}` }, `${storeNames.get(s.id) ?? s.id}: ${s.status.replace('_', ' ')}`))] },
        { label: 'Agents', cell: (x) => agentsOf(x.agents) },
        { label: 'Created', cell: (x) => timeCell(x.createdAt) },
      ], f.data, { empty: 'No files: upload one through POST /v1/files.', caption: 'Files' }));
    clear(stores,
      v.total > v.data.length ? h('p', { class: 'muted' }, `The newest ${v.data.length} of ${v.total}.`) : null,
      table([
        { label: 'Name', cell: (x) => h('span', { class: 'ref' }, h('strong', {}, x.name || '(unnamed)'), idChip(x.id)) },
        { label: 'Files', cell: (x) => countsCell(x.fileCounts) },
        { label: 'Bytes', cell: (x) => bytes(x.bytes) },
        { label: 'Agents', cell: (x) => agentsOf(x.agents) },
        { label: 'Created', cell: (x) => timeCell(x.createdAt) },
        { label: 'Its files', cell: storeFiles },
      ], v.data, { empty: 'No vector stores: make one through POST /v1/vector_stores.', caption: 'Vector stores' }));
  };
  const run = () => load().catch((e) => clear(files, notice(e.message, 'bad')));
  clear(
    root,
    h('h1', {}, 'Files'),
    h('p', { class: 'lead' }, "Files uploaded through /v1/files and the vector stores made of them (/v1/vector_stores), every API key's. An agent's own knowledge is on the ", h('a', { href: '#/knowledge' }, 'Knowledge'), ' page.'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), run()) }, field('Search', q), h('button', { type: 'submit' }, 'Filter')),
    h('h2', {}, 'Files'),
    files,
    h('h2', {}, 'Vector stores'),
    stores,
  );
  run();
  // no change event tells of files: the page reloads after a dropped stream, and by its Filter button
  return { refresh: coalesced(load), kinds: [] };
}
