import { h, svg } from './dom.js';

/**
 * A small bar chart of the last hour, one bar per minute: total in the bar, failures stacked
 * at its foot in the alarm colour. Labelled for screen readers by its totals.
 */
export function minuteChart(title, minutes, now = Date.now()) {
  const width = 300;
  const height = 80;
  const end = Math.floor(now / 60000) * 60000;
  const buckets = new Map(minutes.map((m) => [Date.parse(m.minute), m]));
  const slots = Array.from({ length: 60 }, (_, i) => buckets.get(end - (59 - i) * 60000) ?? { total: 0, failed: 0 });
  const max = Math.max(1, ...slots.map((s) => s.total));
  const total = slots.reduce((n, s) => n + s.total, 0);
  const failed = slots.reduce((n, s) => n + s.failed, 0);
  const bar = width / 60;
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, h('span', {}, title), ' ', h('strong', {}, String(total)), failed ? h('span', { class: 'bad-text' }, ` (${failed} failed)`) : null),
    svg(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${total} in the last hour, ${failed} failed`, preserveAspectRatio: 'none' },
      slots.map((s, i) => {
        const hTotal = (s.total / max) * (height - 4);
        const hFailed = (s.failed / max) * (height - 4);
        return [
          svg('rect', { class: 'bar', x: i * bar + 0.5, y: height - hTotal, width: bar - 1, height: hTotal }),
          s.failed ? svg('rect', { class: 'bar-failed', x: i * bar + 0.5, y: height - hFailed, width: bar - 1, height: hFailed }) : null,
        ];
      }),
    ),
    h('div', { class: 'axis' }, h('span', {}, '60 min ago'), h('span', {}, 'now')),
  );
}
