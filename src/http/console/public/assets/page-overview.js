import { minuteChart } from './charts.js';
import { api } from './api.js';
import { clear, h, table, time } from './dom.js';

const tone = { ready: 'good', failed: 'bad' };

/** the MCP servers (tools.mcpServers) and their health; none configured, no section */
const toolServers = (servers) =>
  table([
    { label: 'Server', cell: (s) => s.server },
    { label: 'State', cell: (s) => h('span', { class: `badge ${tone[s.state] ?? 'neutral'}` }, s.state) },
    { label: 'Tools', cell: (s) => (s.listed === null ? String(s.tools) : `${s.tools} of ${s.listed}+ (tools.maxToolsPerServer)`) },
    { label: 'Since', cell: (s) => time(s.since) },
    { label: 'Restarts', cell: (s) => String(s.restarts) },
    { label: 'Last error', cell: (s) => s.lastError ?? '—' },
  ], servers, { caption: 'Tool servers' });

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

export function overviewPage(root) {
  const charts = h('div', { class: 'charts' });
  const queues = h('div', { class: 'stats' });
  const tools = h('section', { 'aria-label': 'Tool servers' });
  clear(root, h('h1', {}, 'Overview'), h('p', { class: 'lead' }, 'The last hour, live.'), charts, h('h2', {}, 'Queues'), queues, tools);
  const render = (o) => {
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
