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

/** an instant as the operator reads it exactly: "2026-11-22 10:00:05 UTC" */
export function absolute(iso) {
  if (!iso) return '—';
  return `${new Date(iso).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

const units = [
  [60, 's'],
  [60, 'min'],
  [24, 'h'],
  [30, 'd'],
  [12, 'mo'],
  [Infinity, 'y'],
];

/**
 * "12 s ago", "3 min ago", "5 h 12 min ago", "2 d 3 h ago"; a time ahead (a next fire, an expiry):
 * "in 2 h 51 min". From an hour up the next unit is told too: "in 2 h" for a fire 2 h 51 min away
 * reads as wrong.
 */
export function when(iso, now = Date.now()) {
  if (!iso) return '—';
  const s = Math.round((Date.parse(iso) - now) / 1000);
  const text = inUnits(Math.abs(s));
  return s > 0 ? `in ${text}` : `${text} ago`;
}

/** a number of seconds in its largest unit, with the next one below from an hour up */
function inUnits(seconds) {
  const parts = [];
  let n = seconds;
  for (const [size, unit] of units) {
    parts.push([n % size, unit]);
    n = Math.floor(n / size);
    if (n === 0) break;
  }
  const [count, unit] = parts.at(-1);
  const next = parts.length >= 3 ? parts.at(-2) : undefined;
  return next && next[0] > 0 ? `${count} ${unit} ${next[0]} ${next[1]}` : `${count} ${unit}`;
}

/**
 * A time in a list: relative ("3 min ago"), the absolute time on hover and in `datetime`. Every
 * one on the page is brought up to date by one timer, so a list left open keeps telling the truth.
 */
export function timeCell(iso) {
  if (!iso) return '—';
  return h('time', { class: 'rel', datetime: iso, title: absolute(iso) }, when(iso));
}

/** a time in a detail page: absolute, the relative one on hover */
export function absTime(iso) {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: when(iso) }, absolute(iso));
}

/** the relative times now on the page, told again */
export function refreshTimes(root = document) {
  const now = Date.now();
  for (const el of root.querySelectorAll('time.rel[datetime]')) el.textContent = when(el.getAttribute('datetime'), now);
}

if (typeof window !== 'undefined') setInterval(() => refreshTimes(), 15_000);

/**
 * An id as a secondary element of a row: small, truncated on screen, the whole id on hover, in
 * the text (selecting it copies all of it) and copied by a click.
 */
export function idChip(id) {
  if (!id) return null;
  return h('code', { class: 'id-chip', title: `${id} (click to copy)`, 'data-id': id, onclick: (e) => {
    e.preventDefault();
    e.stopPropagation();
    navigator.clipboard?.writeText(id).catch(() => {});
  } }, id);
}

/** a run as a list names it: its name linked, its agent, its id small */
export function runRef(run, { agent = true } = {}) {
  if (!run) return '—';
  return h('span', { class: 'ref' },
    h('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, run.name || run.id),
    agent && run.agentId ? h('span', { class: 'agent' }, run.agentId) : null,
    idChip(run.id));
}

/** a length of time as the operator reads it: "101 ms", "4.2 s", "2 min 1 s", "1 h 5 min" */
export function elapsed(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const min = Math.round(s / 60);
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
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
