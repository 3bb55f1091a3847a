import { api, qs, traceUrl } from './api.js';
import { pagedList } from './paged.js';
import { absTime, badge, clear, coalesced, elapsed, field, h, idChip, json, notice, table, timeCell, traceCell } from './dom.js';
import { rangeAndSearch } from './list-filters.js';
import { transcriptList } from './transcript.js';
import { mcpCallsSection } from './mcp-calls.js';
import { directCallView, toolCountsCell, toolCountsText, toolLimitText, toolTimeline } from './tool-calls.js';

/** the Tools filter: `?tools=` of GET /admin/runs */
const toolFilters = [
  ['', 'any or none'],
  ['any', 'called tools'],
  ['waiting', 'a call waiting'],
  ['refused', 'a call refused or denied'],
  ['failed', 'a call failed'],
];
const statuses = ['', 'queued', 'running', 'waiting_approval', 'succeeded', 'failed', 'timed_out', 'cancelled'];

/** the runs table, shared with a session's page */
export function runsTable(rows, empty) {
  return table(
    [
      { label: 'Run', cell: (r) => h('span', { class: 'ref' }, h('a', { href: `#/runs/${encodeURIComponent(r.id)}` }, r.name || r.id), idChip(r.id)) },
      { label: 'Agent', cell: (r) => r.agentId },
      { label: 'Status', cell: (r) => badge(r.status) },
      { label: 'Created', cell: (r) => timeCell(r.createdAt) },
      { label: 'Mapping', cell: (r) => r.mappingId ?? '—' },
      { label: 'Session', cell: (r) => h('a', { href: `#/sessions/${encodeURIComponent(r.sessionKey)}` }, h('code', {}, r.sessionKey)) },
      { label: 'Worked', cell: (r) => workedCell(r.times) },
      { label: 'Tools', cell: (r) => toolCountsCell(r.tools) },
      { label: 'Re-run of', cell: (r) => (r.rerunOf ? h('a', { href: `#/runs/${encodeURIComponent(r.rerunOf)}`, title: r.rerunOf }, 'the run', ' ', idChip(r.rerunOf)) : '—') },
    ],
    rows,
    { empty, caption: 'Agent runs' },
  );
}

/** the time herald worked on a run, and beside it the time it waited for a person (never counted as worked) */
function workedCell(times) {
  if (!times) return '—';
  return h('span', {}, elapsed(times.workedMs), times.approvalWaitMs ? h('span', { class: 'muted' }, ` + ${elapsed(times.approvalWaitMs)} waiting for a person`) : null);
}

export function runsPage(root, { rest, params }) {
  if (rest[0]) return runDetail(root, rest[0]);
  const status = h('select', { name: 'status' }, statuses.map((s) => h('option', { value: s }, s || 'any status')));
  status.value = params.get('status') ?? '';
  const mapping = h('select', { name: 'mapping' }, h('option', { value: '' }, 'any mapping'));
  const agent = h('select', { name: 'agent' }, h('option', { value: '' }, 'any agent'));
  const tools = h('select', { name: 'tools' }, toolFilters.map(([value, label]) => h('option', { value }, label)));
  tools.value = params.get('tools') ?? '';
  const channel = h('input', { type: 'search', name: 'channel', placeholder: 'telegram, slack, last…', size: 12 });
  channel.value = params.get('channel') ?? '';
  const session = params.get('session') ?? undefined;
  const range = rangeAndSearch({ params, placeholder: 'id, name, session…', onChange: () => list.reset() });
  // beside the agents' runs, the calls MCP clients made through /mcp (not on a session's runs: they have none)
  const mcp = mcpCallsSection();
  const list = pagedList(
    (cursor, limit) =>
      api.get(`/runs${qs({ status: status.value, mapping: mapping.value, agent: agent.value, tools: tools.value, channel: channel.value.trim(), session, ...range.values(), limit, cursor })}`),
    (rows) => runsTable(rows, 'No runs yet.'),
  );
  for (const el of [status, mapping, agent, tools]) el.addEventListener('change', () => list.reset());
  // the filters' choices: the configured mappings and agents
  api.get('/mappings?limit=1000').then((p) => mapping.append(...p.data.map((m) => h('option', { value: m.id }, m.id)))).catch(() => {});
  api.get('/agents').then((p) => agent.append(...p.data.map((a) => h('option', { value: a.id }, a.name ?? a.id)))).catch(() => {});
  clear(
    root,
    h('h1', {}, 'Runs'),
    session ? h('p', {}, 'The runs of session ', h('a', { href: `#/sessions/${encodeURIComponent(session)}` }, h('code', {}, session)), ' · ', h('a', { href: '#/runs' }, 'all runs')) : null,
    h(
      'form',
      { class: 'filters', onsubmit: (e) => (e.preventDefault(), list.reset()) },
      field('Status', status),
      field('Mapping', mapping),
      field('Agent', agent),
      field('Tools', tools),
      field('Channel', channel),
      range.fields,
      h('button', { type: 'submit' }, 'Filter'),
    ),
    list.elements,
    session ? null : mcp.section,
  );
  list.reload();
  if (!session) mcp.load();
  return { refresh: coalesced(async () => (await Promise.all([list.reload(), session ? null : mcp.load()]))[0]), kinds: ['runs'] };
}

function runDetail(root, id) {
  const body = h('div', {});
  clear(root, h('p', {}, h('a', { href: '#/runs' }, '← Runs')), body);
  const load = async () => {
    const run = await api.get(`/runs/${encodeURIComponent(id)}`);
    const status = h('div', {});
    const act = (label, path, klass) =>
      h('button', { type: 'button', class: klass, onclick: async () => {
        try {
          const answer = await api.post(path);
          if (answer.runId) location.hash = `#/runs/${encodeURIComponent(answer.runId)}`;
          else load();
        } catch (error) {
          clear(status, notice(error.message, 'bad'));
        }
      } }, label);
    clear(
      body,
      h('h1', {}, `Run: ${run.name}`),
      h('div', { class: 'actions' }, act('Re-run', `/runs/${encodeURIComponent(id)}/rerun`, 'primary'), run.status === 'queued' || run.status === 'waiting_approval' ? act('Cancel', `/runs/${encodeURIComponent(id)}/cancel`, 'danger') : null),
      status,
      h(
        'dl',
        { class: 'facts' },
        [
          ['Status', badge(run.status)],
          ['Error', run.error ?? '—'],
          ['Model', run.model ?? '—'],
          ['Agent', run.agentId],
          ['Session', h('code', {}, run.sessionKey)],
          ['Trace', traceCell(run.traceId, traceUrl(run.traceId))],
          ['Mapping', run.mappingId ?? '—'],
          ['Id', h('code', {}, run.id)],
          ['Queued', absTime(run.createdAt)],
          ['Started', absTime(run.startedAt)],
          ['Finished', absTime(run.finishedAt)],
          ['In the queue', run.times.queuedMs === null ? 'not started yet' : elapsed(run.times.queuedMs)],
          ['Waiting for a person', run.times.approvalWaitMs ? elapsed(run.times.approvalWaitMs) : run.status === 'waiting_approval' ? 'waiting now' : 'none'],
          ['Worked', run.times.workedMs === null ? 'not finished' : elapsed(run.times.workedMs)],
          ['Held back', waitedView(run.waited)],
          ['Tool calls', toolCountsText(run.tools)],
          ['Tool limit', toolLimitText(run.toolLimit, run.tools)],
          ...(run.awaitingSignIn?.length ? [['Sign-in needed', signInNeededView(run.awaitingSignIn)]] : []),
          ['Coalesced', run.coalescedCount ? h('a', { href: `#/requests?run=${encodeURIComponent(id)}` }, `${run.coalescedCount} events`) : '—'],
          ['Request', run.receipt ? h('a', { href: `#/requests/${encodeURIComponent(run.receipt.id)}` }, `${run.receipt.path} (${run.receipt.status})`) : '—'],
          ...(run.fire ? [['Schedule', h('a', { href: `#/schedules?schedule=${encodeURIComponent(run.fire.scheduleId)}` }, `${run.fire.source}, due ${run.fire.dueAt}, ${run.fire.lagMs} ms late`)]] : []),
          ['Re-run of', run.rerunOf ? h('a', { href: `#/runs/${encodeURIComponent(run.rerunOf)}` }, run.rerunOf) : '—'],
          ['Re-runs', run.reruns.length ? run.reruns.map((r) => h('a', { href: `#/runs/${encodeURIComponent(r)}` }, h('code', {}, r), ' ')) : '—'],
        ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      ...(run.action?.kind === 'tool' ? directCallSections(run) : modelSections(run)),
      h('h2', {}, 'Reply'),
      run.reply ? h('pre', { class: 'code' }, run.reply) : h('p', { class: 'muted' }, '—'),
      h('h2', {}, 'Delivery'),
      deliveryView(run.delivery, act),
      h('h2', {}, 'Action'),
      json(run.action),
    );
  };
  load().catch((e) => clear(body, notice(e.message, 'bad')));
  return { refresh: coalesced(load), kinds: ['runs', 'deliveries', 'sessions'] };
}

/** the agent's MCP servers that waited for a person to sign in: their tools were not offered; the Overview has the Sign in button */
const signInNeededView = (servers) => [
  servers.flatMap((s, i) => [i ? ', ' : '', h('code', {}, s)]),
  ` ${servers.length === 1 ? 'waits' : 'wait'} for a person to sign in: ${servers.length === 1 ? 'its' : 'their'} tools were not offered to the model (`,
  h('a', { href: '#/overview' }, 'Sign in on the Overview'),
  ')',
];

/** an agent's run: what its model saw, the transcript, its turns and their tool calls */
function modelSections(run) {
  return [
    h('h2', {}, 'Prompt as the model saw it'),
    run.prompt ? h('pre', { class: 'code prompt' }, run.prompt) : h('p', { class: 'muted' }, 'Not recorded (the run has not finished, or failed before the model answered).'),
    h('h2', {}, 'Transcript'),
    run.transcript.length
      ? transcriptList(run.transcript, () => '')
      : h('p', { class: 'muted' }, 'No transcript.'),
    h('h2', {}, 'Model turns and tool calls'),
    toolTimeline(run.toolCalls ?? [], run.reply !== null),
  ];
}

/** a direct call's run (action "tool", a schedule's toolCall): no model, the call itself with its arguments and result */
function directCallSections(run) {
  const call = run.action.call;
  return [
    h('h2', {}, 'Tool call (direct, no model)'),
    h('p', {}, h('code', {}, call.tool), run.action.schedule ? ' called by its schedule' : ' called by its mapping', ', each attempt below'),
    directCallView(run.toolCalls ?? []),
  ];
}

const waitReasons = { concurrency: "its mapping's concurrency", rate: "its mapping's rate", coalesce: 'its coalescing window' };

/** what held a governed mapping's run back (concurrency, rate, coalesce), until when, and how long */
function waitedView(waited) {
  if (!waited) return '—';
  const took = waited.ms === null ? ' (not started yet)' : ` (${elapsed(waited.ms)})`;
  return h('span', {}, `for ${waitReasons[waited.reason] ?? waited.reason}`, waited.until ? [' until ', absTime(waited.until)] : null, took);
}

/** where the reply went (or why it did not), with the outbox's retry and abandon at hand */
function deliveryView(d, act) {
  if (!d) return h('p', { class: 'muted' }, '—');
  const target = d.channel ? `${d.channel}${d.to ? ` → ${d.to}` : ''}` : `${d.requested?.channel ?? 'last'}${d.requested?.to ? ` → ${d.requested.to}` : ''} (requested)`;
  return [
    h('p', {}, badge(d.status), ' ', target, d.attempts !== undefined ? ` · ${d.attempts} attempt(s)` : '', d.lastError && d.status !== 'delivered' ? ` · ${d.lastError}` : d.reason ? ` · ${d.reason}` : ''),
    d.id
      ? h('div', { class: 'actions' },
          d.status === 'failed' ? act('Retry delivery', `/deliveries/${encodeURIComponent(d.id)}/retry`, 'primary') : null,
          d.status === 'failed' || d.status === 'pending' ? act('Abandon delivery', `/deliveries/${encodeURIComponent(d.id)}/abandon`, 'danger') : null,
          h('a', { href: `#/deliveries?run=${encodeURIComponent(d.runId)}` }, 'In the outbox'),
          d.fallbackOf ? h('a', { href: `#/deliveries/${encodeURIComponent(d.id)}` }, 'Fallback chain') : null)
      : null,
    h('details', {}, h('summary', {}, 'As the outbox records it'), json(d)),
  ];
}
