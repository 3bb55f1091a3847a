import { minuteChart } from './charts.js';
import { api } from './api.js';
import { clear, h } from './dom.js';

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

export function overviewPage(root) {
  const charts = h('div', { class: 'charts' });
  const queues = h('div', { class: 'stats' });
  clear(root, h('h1', {}, 'Overview'), h('p', { class: 'lead' }, 'The last hour, live.'), charts, h('h2', {}, 'Queues'), queues);
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
  };
  api.get('/overview').then(render).catch(() => {});
  return { overview: render };
}
