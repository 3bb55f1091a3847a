import { minuteChart } from './charts.js';
import { api } from './api.js';
import { clear, h, notice, table, timeCell } from './dom.js';

const tone = { ready: 'good', failed: 'bad' };

/**
 * A person's sign-in to a server that waits for one: the authorize route answers the
 * authorization server's page, where this window goes; the server's sign-in comes back to
 * herald's /oauth/callback, whose page links back here (the server then ready).
 */
function signInButton(server) {
  const said = h('span', {});
  const button = h('button', {
    type: 'button',
    class: 'primary',
    'aria-label': `Sign in to ${server}`,
    onclick: async () => {
      button.disabled = true;
      try {
        const { authorizationUrl } = await api.post(`/tools/servers/${encodeURIComponent(server)}/authorize`);
        window.location.assign(authorizationUrl);
      } catch (error) {
        button.disabled = false;
        clear(said, notice(error.message, 'bad'));
      }
    },
  }, 'Sign in');
  return h('span', { class: 'sign-in' }, button, said);
}

const waitsForSignIn = (s) => s.state === 'needs_authorization';

/** the MCP servers (tools.mcpServers) and their health; none configured, no section */
const toolServers = (servers) =>
  table([
    { label: 'Server', cell: (s) => s.server },
    { label: 'State', cell: (s) => [h('span', { class: `badge ${tone[s.state] ?? 'neutral'}` }, s.state), waitsForSignIn(s) ? [' ', signInButton(s.server)] : null] },
    { label: 'Tools', cell: (s) => (s.listed === null ? String(s.tools) : `${s.tools} of ${s.listed}+ (tools.maxToolsPerServer)`) },
    { label: 'Since', cell: (s) => timeCell(s.since) },
    { label: 'Restarts', cell: (s) => String(s.restarts) },
    { label: 'Last error', cell: (s) => s.lastError ?? '—' },
  ], servers, { caption: 'Tool servers' });

const link = (href, text) => h('a', { href }, text);
const failures = (p) => `${p.consecutiveFailures} failure${p.consecutiveFailures === 1 ? '' : 's'} in a row`;
/**
 * which replica saw it: another (stale when it has gone silent), or this one when another's parts
 * show beside it; a lone process (SQLite) or replicas all well but this one name none
 */
const fromOthers = (t) => [...t.providers, ...t.channels, ...t.toolServers].some((p) => p.replica !== t.self);
const seenBy = (t, p) =>
  p.replica === t.self ? (fromOthers(t) ? ' · this replica' : '') : [' · replica ', h('code', {}, p.replica), p.stale ? h('span', { class: 'badge neutral', title: 'Not heard from for 90 s: it stopped without a word. Dropped after 15 min.' }, 'stale') : ''];
const where = (m) => `${m.file}${m.index === null ? '' : ` [${m.index}]`}${m.line === null ? '' : `:${m.line}:${m.column}`}`;

/**
 * What needs the operator, first: one line per item (what, since when, why), each linking to the
 * page that shows more. Nothing: one calm line.
 */
function troubleItems(t, approvals) {
  const item = (kind, ...children) => h('li', { class: 'trouble-item' }, h('span', { class: 'badge bad' }, kind), ' ', ...children);
  return [
    ...(approvals?.waiting ? [item('approvals', link('#/approvals', waitingText(approvals)), ' · the oldest since ', timeCell(approvals.oldestAt))] : []),
    ...t.alerts.map((a) => item('alert', link(`#/alerts?status=open&condition=${encodeURIComponent(a.condition)}`, `${a.condition}: ${a.subject}`), ' · ', a.summary, ' · since ', timeCell(a.raisedAt))),
    ...(t.refusedReload
      ? [item('reload refused', 'the running config stays (', t.refusedReload.reason, ', ', timeCell(t.refusedReload.at), ')', h('ul', { class: 'faults' }, t.refusedReload.faults.map((f) => h('li', {}, h('code', {}, f)))))]
      : []),
    ...(t.restartRequired
      ? [item('restart needed', t.restartRequired.keys.map((k) => h('code', {}, k)).flatMap((k, i) => (i ? [', ', k] : [k])), ' changed in the config file; a reload does not apply them (', t.restartRequired.reason, ', ', timeCell(t.restartRequired.at), '): the running values stay until herald restarts')]
      : []),
    ...t.mappings.map((m) => item('mapping not loaded', link('#/mappings', m.id ?? where(m)), ' ', h('code', {}, where(m)), m.field ? ` · ${m.field}` : '')),
    ...t.providers.map((p) => item('model provider', link('#/runs?status=failed', p.name), ` · ${failures(p)} · `, p.cause ?? '', ' · since ', timeCell(p.since ?? p.lastFailureAt), seenBy(t, p))),
    ...t.channels.map((c) => item('channel', link(`#/deliveries?status=failed&channel=${encodeURIComponent(c.name)}`, c.name), ` · ${failures(c)} · `, c.cause ?? '', ' · since ', timeCell(c.since ?? c.lastFailureAt), seenBy(t, c))),
    ...t.toolServers.map((s) => item('MCP server', s.server, ` · ${s.state}`, s.lastError ? ` · ${s.lastError}` : '', ' · since ', timeCell(s.since), seenBy(t, s), waitsForSignIn(s) ? [' ', signInButton(s.server)] : null)),
    ...t.warnings.map((w) => h('li', { class: 'trouble-item' }, h('span', { class: 'badge neutral' }, 'config warning'), ' ', w)),
  ];
}

/** "3 tool calls wait for a person" (100+ past the count) */
const waitingText = (a) => `${a.waiting}${a.capped ? '+' : ''} tool call${a.waiting === 1 && !a.capped ? ' waits' : 's wait'} for a person`;

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

export function overviewPage(root) {
  const charts = h('div', { class: 'charts' });
  const queues = h('div', { class: 'stats' });
  const tools = h('section', { 'aria-label': 'Tool servers' });
  const trouble = h('section', { 'aria-label': 'Trouble', class: 'trouble' });
  clear(root, h('h1', {}, 'Overview'), trouble, h('p', { class: 'lead' }, 'The last hour, live.'), charts, h('h2', {}, 'Queues'), queues, tools);
  const render = (o) => {
    const items = troubleItems(o.trouble, o.approvals);
    clear(trouble, h('h2', {}, 'Trouble'), items.length ? h('ul', { class: 'trouble-list' }, items) : h('p', { class: 'all-clear' }, 'All clear: no open alert, no refused reload, every mapping loaded, every provider and channel answering, nothing waits for a person.'));
    clear(
      charts,
      minuteChart('Requests', o.perMinute.requests),
      minuteChart('Runs', o.perMinute.runs),
      minuteChart('Deliveries', o.perMinute.deliveries),
    );
    const stat = (label, value, href) => h('div', { class: 'stat' }, h('span', {}, label), h('strong', {}, href ? h('a', { href }, String(value)) : String(value)));
    clear(
      queues,
      stat('Runs queued', o.queues.runsQueued, '#/runs?status=queued'),
      stat('Runs running', o.queues.runsRunning, '#/runs?status=running'),
      stat('Approvals waiting', `${o.approvals?.waiting ?? 0}${o.approvals?.capped ? '+' : ''}`, '#/approvals'),
      stat('Events pending', o.queues.eventsPending, '#/session'),
      stat('Deliveries pending', o.queues.deliveries.pending ?? 0, '#/deliveries?status=pending'),
      stat('Deliveries failed', o.queues.deliveries.failed ?? 0, '#/deliveries?status=failed'),
      stat('Retained payloads', bytes(o.retainedBytes)),
    );
    if (o.toolServers.length) clear(tools, h('h2', {}, 'Tool servers'), toolServers(o.toolServers));
    else clear(tools);
  };
  api.get('/overview').then(render).catch(() => {});
  return { overview: render };
}
