import { api, qs } from './api.js';
import { pagedList } from './paged.js';
import { badge, clear, coalesced, field, h, idChip, notice, table, timeCell } from './dom.js';
import { rangeAndSearch } from './list-filters.js';

/** how many of each job's newest fires the jobs table shows */
const LAST_FIRES = 3;

const when = (s) => (s.kind === 'cron' ? `cron ${s.expr}${s.tz ? ` (${s.tz})` : ''}` : s.kind === 'every' ? `every ${s.every}` : `at ${s.at}`);
const lag = (ms) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
/** the first words of a message or argument list: whole up to MAX characters, else cut after a word */
const MAX = 60;
function start(text) {
  if (text.length <= MAX) return text;
  const cut = text.slice(0, MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
const quoted = (text) => `“${start(text)}”`;

/** what a fire does, as the operator tells jobs apart: the agent and the start of its message, the tool and its arguments, the event's text */
function does(job, defaultAgentId) {
  const { payload } = job;
  // a toolCall job delivers only its `then` message
  const delivers = job.delivery?.mode && job.delivery.mode !== 'none' && (payload.kind !== 'toolCall' || payload.then);
  const delivered = delivers ? h('span', { class: 'muted' }, ` · ${job.delivery.mode}${job.delivery.to ? ` to ${job.delivery.to}` : ''}`) : null;
  if (payload.kind === 'systemEvent') return h('span', {}, 'main-session event ', quoted(payload.text));
  if (payload.kind === 'toolCall') return h('span', {}, 'calls ', h('code', {}, payload.tool), ' ', h('code', {}, start(JSON.stringify(payload.arguments ?? {}))), delivered);
  return h('span', {}, 'run of ', h('span', { class: 'agent' }, payload.agentId ?? defaultAgentId ?? 'the default agent'), ' ', quoted(payload.message), delivered);
}

const fireStatus = (f) => (f.run ? `${f.outcome} · ${f.run.status ?? 'gone'}` : f.outcome);
/** a fire's run by its name and agent (the id small beside them) */
const runLink = (f) =>
  f.run
    ? h('span', { class: 'ref' }, h('a', { href: `#/runs/${encodeURIComponent(f.run.id)}` }, f.run.name ?? 'run'), f.run.agentId ? h('span', { class: 'agent' }, f.run.agentId) : null, idChip(f.run.id))
    : h('span', { class: 'muted' }, f.detail ?? 'event');

/**
 * The scheduled jobs (the config's and those made through the API): next fire, their last fires and
 * those fires' runs; run now, enable, disable and delete. Below, every fire as a receipt of its
 * schedule: due time, start, lag, outcome and run, filtered like the requests.
 */
export function schedulesPage(root, { params }) {
  const shown = h('div', {});
  const jobs = h('div', {});
  const say = (message, tone) => clear(shown, notice(message, tone));
  const act = async (label, work) => {
    try {
      await work();
      say(label, 'good');
    } catch (error) {
      say(error.message, 'bad');
    }
    await Promise.all([loadJobs(), fires.reload()]);
  };
  const actions = (s) => {
    const id = encodeURIComponent(s.id);
    const run = h('button', { type: 'button', onclick: () => act(`Ran ${s.id} now.`, () => api.post(`/schedules/${id}/run`)) }, 'Run now');
    if (s.origin === 'config') return h('span', { class: 'actions' }, run, h('span', { class: 'muted' }, ' edit the config to change it'));
    const toggle = s.enabled
      ? h('button', { type: 'button', onclick: () => act(`Disabled ${s.id}.`, () => api.patch(`/schedules/${id}`, { enabled: false })) }, 'Disable')
      : h('button', { type: 'button', onclick: () => act(`Enabled ${s.id}.`, () => api.patch(`/schedules/${id}`, { enabled: true })) }, 'Enable');
    const remove = h('button', { type: 'button', class: 'danger', onclick: () => {
      if (!confirm(`Delete ${s.id}? It fires no more; its fires stay as history.`)) return;
      act(`Deleted ${s.id}.`, () => api.del(`/schedules/${id}`));
    } }, 'Delete');
    return h('span', { class: 'actions' }, run, toggle, remove);
  };
  const loadJobs = async () => {
    const [{ data }, recent, agents] = await Promise.all([api.get('/schedules'), api.get(`/schedule-runs${qs({ limit: 500 })}`), api.get('/agents').catch(() => ({}))]);
    const last = new Map();
    for (const f of recent.data) {
      const list = last.get(f.scheduleId) ?? [];
      if (list.length < LAST_FIRES) list.push(f);
      last.set(f.scheduleId, list);
    }
    clear(jobs, table([
      { label: 'Job', cell: (s) => h('span', {}, h('strong', {}, s.id), s.job.name ? h('span', { class: 'muted' }, ` ${s.job.name}`) : null) },
      { label: 'When', cell: (s) => when(s.job.schedule) },
      { label: 'Does', cell: (s) => does(s.job, agents.defaultAgentId) },
      { label: 'Origin', cell: (s) => (s.origin === 'config' ? 'config file' : 'API') },
      { label: 'Enabled', cell: (s) => h('span', { class: `badge ${s.enabled ? 'good' : 'neutral'}` }, s.enabled ? 'enabled' : 'disabled') },
      { label: 'Next fire', cell: (s) => (s.nextDueAt ? timeCell(s.nextDueAt) : '—') },
      { label: 'Last fires', cell: (s) => {
        const list = last.get(s.id) ?? [];
        return list.length ? h('ul', { class: 'plain' }, list.map((f) => h('li', {}, timeCell(f.dueAt), ' ', badge(fireStatus(f)), ' ', runLink(f)))) : h('span', { class: 'muted' }, 'none yet');
      } },
      { label: 'Actions', cell: actions },
    ], data, { empty: 'No schedules: add schedules.jobs to the config, or POST /admin/schedules (herald cron add).', caption: 'Schedules' }));
  };

  const schedule = h('input', { name: 'schedule', placeholder: 'job id' });
  schedule.value = params.get('schedule') ?? '';
  const outcome = h('select', { name: 'outcome' }, ['', 'dispatched', 'skipped', 'missed', 'failed', 'claimed'].map((o) => h('option', { value: o }, o || 'any outcome')));
  outcome.value = params.get('outcome') ?? '';
  const range = rangeAndSearch({ params, placeholder: 'job, run id, detail…', onChange: () => fires.reset() });
  const fires = pagedList(
    (cursor, limit) => api.get(`/schedule-runs${qs({ schedule: schedule.value.trim(), outcome: outcome.value, ...range.values(), limit, cursor })}`),
    (rows) =>
      table([
        { label: 'Source', cell: (f) => f.source },
        { label: 'Due', cell: (f) => timeCell(f.dueAt) },
        { label: 'Started', cell: (f) => timeCell(f.startedAt) },
        { label: 'Lag', cell: (f) => lag(f.lagMs) },
        { label: 'Outcome', cell: (f) => badge(f.outcome) },
        { label: 'Run', cell: (f) => (f.run ? h('span', {}, runLink(f), ' ', badge(f.run.status ?? 'gone')) : '—') },
        { label: 'Detail', cell: (f) => f.detail ?? '' },
      ], rows, { empty: 'No fires.', caption: 'Fires' }),
  );
  outcome.addEventListener('change', () => fires.reset());

  clear(
    root,
    h('h1', {}, 'Schedules'),
    h('p', { class: 'lead' }, 'Jobs that fire at a time, every period or by a cron expression: each fire is a run (or a main-session event) like a webhook\'s.'),
    shown,
    jobs,
    h('h2', {}, 'Fires'),
    h('form', { class: 'filters', onsubmit: (e) => (e.preventDefault(), fires.reset()) }, field('Job', schedule), field('Outcome', outcome), range.fields, h('button', { type: 'submit' }, 'Filter')),
    fires.elements,
  );
  loadJobs().catch((error) => say(error.message, 'bad'));
  fires.reload();
  // a fire makes a run or an event; a run's end changes its status here
  return { refresh: coalesced(() => Promise.all([loadJobs(), fires.reload()])), kinds: ['runs', 'events'] };
}
