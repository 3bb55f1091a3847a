import { api } from './api.js';
import { field, h } from './dom.js';

/** "2026-11-23T16:05" (a datetime-local value, the browser's time zone) -> ISO 8601; `end`: the last ms of that minute */
export function isoOf(local, end = false) {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  if (Number.isNaN(t)) return undefined;
  return new Date(end && local.length <= 16 ? t + 59_999 : t).toISOString();
}

/**
 * The controls every list page has: a time range (From, To, in the browser's time zone) and a
 * search box. `values()` gives the admin API's `since`, `until` and `q`; `onChange` runs when the
 * range changes (the search waits for the form's submit, so each key press is not a request).
 */
export function rangeAndSearch({ params, placeholder, onChange }) {
  const from = h('input', { type: 'datetime-local', name: 'since' });
  const to = h('input', { type: 'datetime-local', name: 'until' });
  const q = h('input', { type: 'search', name: 'q', placeholder, maxlength: 200 });
  q.value = params?.get('q') ?? '';
  for (const el of [from, to]) el.addEventListener('change', onChange);
  // clearing the search box (its ✕, or Escape) shows everything again at once
  q.addEventListener('search', () => q.value === '' && onChange());
  return {
    fields: [field('From', from), field('To', to), field('Search', q)],
    values: () => ({ since: isoOf(from.value), until: isoOf(to.value, true), q: q.value.trim() || undefined }),
  };
}

/** an Agent filter: "any agent", then every agent (loaded from the admin API), set to the page's `?agent=` */
export function agentFilter(params) {
  const agent = h('select', { name: 'agent' }, h('option', { value: '' }, 'any agent'));
  agent.value = params.get('agent') ?? '';
  api
    .get('/agents')
    .then((p) => {
      agent.append(...p.data.map((a) => h('option', { value: a.id }, a.name ?? a.id)));
      agent.value = params.get('agent') ?? '';
    })
    .catch(() => {});
  return agent;
}
