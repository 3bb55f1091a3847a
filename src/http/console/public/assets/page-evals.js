import { api } from './api.js';
import { clear, field, h, notice, table } from './dom.js';

// "Try a change": recorded requests replayed through a candidate (an agent's prompt or model, or a
// mapping), compared side by side with what happened (POST /admin/evals; a long one is a job,
// followed with GET /admin/evals/{id}). Nothing is sent, stored or executed (docs/evals.md).

/** a side's tool calls in one line each: tool(arguments), and how the replay answered it */
const callsText = (calls) => (calls.length ? calls.map((c) => `${c.tool}(${c.arguments})${c.by ? ` · ${c.by}` : c.status ? ` · ${c.status}` : ''}`).join('\n') : '—');

/** one side of a request: the mapping's outcome, the message, the tool calls, the reply */
function side(s) {
  if (!s) return h('span', { class: 'muted' }, 'not recorded (a fixture)');
  return h(
    'dl',
    { class: 'side' },
    h('dt', {}, 'Outcome'), h('dd', {}, `${s.outcome}${s.mappingId ? ` (${s.mappingId})` : ''}${s.error ? `: ${s.error}` : ''}`),
    h('dt', {}, 'Message'), h('dd', {}, s.message ?? '—'),
    h('dt', {}, 'Tool calls'), h('dd', {}, h('pre', { class: 'code' }, callsText(s.toolCalls))),
    h('dt', {}, 'Reply'), h('dd', {}, h('pre', { class: 'code reply' }, s.reply ?? '—')),
    s.model ? [h('dt', {}, 'Model'), h('dd', {}, s.model)] : null,
  );
}

function summaryText(summary) {
  const changed = Object.entries(summary.changed ?? {}).filter(([, n]) => n).map(([what, n]) => `${n} ${what}`);
  return `${summary.requests} requests replayed: ${summary.unchanged} unchanged${changed.length ? `, changed: ${changed.join(', ')}` : ''}${summary.intendedWrites ? `, ${summary.intendedWrites} intended writes (not made)` : ''}`;
}

function reportView(report) {
  return [
    h('p', { class: 'summary', role: 'status' }, summaryText(report.summary)),
    table(
      [
        { label: 'Request', cell: (c) => h('span', {}, c.label ?? c.path, h('br'), h('code', { class: 'muted' }, c.id)) },
        { label: 'Recorded', cell: (c) => side(c.recorded) },
        { label: 'Candidate', cell: (c) => side(c.candidate) },
        { label: 'Changed', cell: (c) => (c.changes.length ? h('span', { class: 'badge bad' }, c.changes.join(', ')) : h('span', { class: 'badge good' }, 'unchanged')) },
      ],
      report.cases,
      { empty: 'No retained requests match: set retainPayloads on the mappings to evaluate.', caption: 'Side by side' },
    ),
    report.casesCut ? h('p', { class: 'muted' }, 'More requests were replayed than are shown; the summary counts them all.') : null,
  ];
}

export function evalsPage(root) {
  const mapping = h('input', { name: 'mapping', placeholder: 'any mapping' });
  const agentFilter = h('input', { name: 'agent-filter', placeholder: 'any agent' });
  const limit = h('input', { name: 'limit', type: 'number', min: '1', max: '1000', value: '10' });
  const agent = h('select', { name: 'agent' }, h('option', { value: '' }, '(no agent change)'));
  const prompt = h('textarea', { name: 'prompt', rows: '5', placeholder: "the agent's instructions, as the candidate has them" });
  const model = h('input', { name: 'model', placeholder: 'provider/model, e.g. embedded/extractive' });
  const candidateMapping = h('textarea', { name: 'candidate-mapping', rows: '6', placeholder: '{"id": "github-issues", "match": {"path": "github"}, ...} (JSON: takes the place of the mapping of the same id)' });
  const status = h('div', {});
  const results = h('div', {});
  api.get('/agents').then(({ data }) => agent.append(...data.map((a) => h('option', { value: a.id }, a.name ? `${a.name} (${a.id})` : a.id)))).catch(() => {});

  const follow = async (job) => {
    while (job.status === 'running') {
      clear(status, notice(`Running: ${job.progress.done} of ${job.progress.total} requests…`));
      await new Promise((r) => setTimeout(r, 1000));
      job = await api.get(`/evals/${encodeURIComponent(job.id)}`);
    }
    if (job.status === 'failed') throw new Error(job.error);
    clear(status, job.status === 'stopped' ? notice('Stopped: the report holds what was done.') : null);
    return job.report;
  };

  const run = async (e) => {
    e.preventDefault();
    clear(results);
    try {
      const overrides = {};
      if (agent.value && prompt.value.trim()) overrides[`agents.${agent.value}.instructions`] = prompt.value;
      if (agent.value && model.value.trim()) overrides[`agents.${agent.value}.model`] = model.value.trim();
      const mappings = candidateMapping.value.trim() ? [JSON.parse(candidateMapping.value)] : [];
      const selection = { limit: Number(limit.value) || 10, ...(mapping.value.trim() && { mapping: mapping.value.trim() }), ...(agentFilter.value.trim() && { agent: agentFilter.value.trim() }) };
      clear(status, notice('Replaying…'));
      const answer = await api.post('/evals', { selection, candidate: { overrides, mappings } });
      const report = answer.id ? await follow(answer) : answer;
      clear(status);
      clear(results, reportView(report));
    } catch (error) {
      clear(status, notice(error instanceof SyntaxError ? `The mapping is not JSON: ${error.message}` : error.message, 'bad'));
    }
  };

  clear(
    root,
    h('h1', {}, 'Try a change'),
    h('p', {}, 'Replay recorded requests through a changed prompt, model or mapping and compare with what happened. Nothing is sent, stored or executed: tool calls get their recorded results, writes are reported, never made.'),
    h(
      'form',
      { class: 'try-change', onsubmit: run },
      h('fieldset', {}, h('legend', {}, 'Requests'), field('Mapping', mapping), field('Agent', agentFilter), field('Limit', limit)),
      h('fieldset', {}, h('legend', {}, 'The change'), field('Agent', agent), field('Prompt', prompt), field('Model', model), field('Mapping (JSON)', candidateMapping)),
      h('button', { type: 'submit', class: 'primary' }, 'Run'),
    ),
    status,
    results,
  );
  return {};
}
