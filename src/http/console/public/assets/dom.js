// Tiny DOM helpers. Every value reaches the page as text (textContent, attributes), never as HTML:
// a payload or a reply that holds markup is shown, not run.

/** h('a', {href, onclick}, 'text', child) */
/** a trace id, linked to the operator's tracing UI when tracing.linkTemplate names one */
export function traceCell(traceId, url) {
  if (!traceId) return '—';
  return url ? h('a', { href: url, target: '_blank', rel: 'noopener' }, traceId) : h('code', {}, traceId);
}

export function h(tag, attrs = {}, ...children) {
  const el = tag.includes(':') ? document.createElementNS('http://www.w3.org/2000/svg', tag.split(':')[1]) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.setAttribute('class', value);
    else if (key === 'value' && 'value' in el) el.value = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const svg = (tag, attrs, ...children) => h(`svg:${tag}`, attrs, ...children);

export function clear(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** "3 s ago", "2026-11-22 10:00" */
export function when(iso) {
  if (!iso) return '—';
  const t = Date.parse(iso);
  const s = Math.round((Date.now() - t) / 1000);
  if (s >= 0 && s < 60) return `${s} s ago`;
  if (s >= 0 && s < 3600) return `${Math.floor(s / 60)} min ago`;
  return new Date(t).toISOString().replace('T', ' ').slice(0, 19);
}

export const time = (iso) => h('time', { datetime: iso ?? '', title: iso ?? '' }, when(iso));

export function duration(from, to) {
  if (!from || !to) return '—';
  const ms = Date.parse(to) - Date.parse(from);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export const json = (value) => h('pre', { class: 'code' }, JSON.stringify(value, null, 2));

export function badge(status) {
  const tone = /succeeded|delivered|done|ok|^2/.test(String(status)) ? 'good' : /failed|error|timed_out|abandoned|^[45]/.test(String(status)) ? 'bad' : 'neutral';
  return h('span', { class: `badge ${tone}` }, String(status));
}

export function table(columns, rows, { empty = 'Nothing yet.', caption } = {}) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      caption ? h('caption', { class: 'sr-only' }, caption) : null,
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c.label)))),
      h('tbody', {}, rows.map((row) => h('tr', {}, columns.map((c) => h('td', { 'data-label': c.label }, c.cell(row)))))),
    ),
  );
}

export function field(label, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 8)}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('small', {}, hint) : null);
}

export function notice(message, tone = 'info') {
  return h('p', { class: `notice ${tone}`, role: tone === 'bad' ? 'alert' : 'status' }, message);
}

export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** a page's reload for the live stream: calls while one runs become one more run after it, so a burst of changes costs two loads */
export function coalesced(load) {
  let running = null;
  let again = false;
  const run = async () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await load().catch(() => {});
      } while (again);
    })();
    try {
      await running;
    } finally {
      running = null;
    }
  };
  return run;
}
