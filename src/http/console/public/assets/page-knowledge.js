import { api, qs, upload } from './api.js';
import { clear, field, h, notice, table, timeCell } from './dom.js';

export function knowledgePage(root, { params }) {
  const agent = h('select', { name: 'agent' });
  const file = h('input', { type: 'file', name: 'file', required: true });
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Upload progress' });
  const status = h('div', {});
  const list = h('div', {});
  const load = async () => {
    const docs = await api.get(`/knowledge${qs({ agent_id: agent.value, limit: 100 })}`);
    clear(list, table([
      { label: 'File', cell: (d) => d.filename },
      { label: 'Agent', cell: (d) => d.agent_id },
      { label: 'Bytes', cell: (d) => String(d.bytes) },
      { label: 'Chunks', cell: (d) => String(d.chunk_count) },
      { label: 'Type', cell: (d) => d.mime_type },
      { label: 'Uploaded', cell: (d) => timeCell(new Date(d.created_at * 1000).toISOString()) },
      { label: 'Actions', cell: (d) => h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!confirm(`Delete ${d.filename}?`)) return;
        await api.del(`/knowledge/${encodeURIComponent(d.id)}`);
        clear(status, notice(`Deleted ${d.filename}.`, 'good'));
        load();
      } }, 'Delete') },
    ], docs.data, { empty: 'No documents for this agent yet.', caption: 'Knowledge documents' }));
  };
  const form = h(
    'form',
    { class: 'filters', onsubmit: async (e) => {
      e.preventDefault();
      if (!file.files?.[0]) return;
      const data = new FormData();
      data.set('agent_id', agent.value);
      data.set('file', file.files[0]);
      progress.hidden = false;
      progress.value = 0;
      try {
        const doc = await upload('/knowledge/upload', data, (p) => (progress.value = p));
        progress.value = 1;
        clear(status, notice(`Uploaded ${doc.filename}: ${doc.chunk_count} chunk(s).`, 'good'));
        file.value = '';
        load();
      } catch (error) {
        clear(status, notice(error.message, 'bad'));
      }
    } },
    field('Agent', agent),
    field('Document', file, 'PDF, DOCX, Markdown, text, HTML, CSV…'),
    h('button', { type: 'submit', class: 'primary' }, 'Upload'),
    progress,
  );
  agent.addEventListener('change', load);
  clear(root, h('h1', {}, 'Knowledge'), h('p', { class: 'lead' }, "Each agent's knowledge base."), form, status, list);
  api.get('/agents').then(({ data }) => {
    clear(agent, data.map((a) => h('option', { value: a.id }, a.name ? `${a.name} (${a.id})` : a.id)));
    if (params.get('agent')) agent.value = params.get('agent');
    load();
  });
  return {};
}
