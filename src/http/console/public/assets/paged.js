import { clear, h } from './dom.js';

const PAGE = 50;

/**
 * A newest-first list with an "Older" button. `fetchPage(cursor, limit)` answers one admin API
 * page ({data, nextCursor}); `render(rows)` draws every row shown so far. A reload (a filter, or
 * the live stream) asks again from the top for as many rows as are shown, so paging back stays.
 */
export function pagedList(fetchPage, render) {
  const list = h('div', {});
  const more = h('div', { class: 'more' });
  let rows = [];
  let cursor = null;
  const show = (page, append) => {
    rows = append ? [...rows, ...page.data] : page.data;
    cursor = page.nextCursor;
    clear(list, render(rows));
    clear(more, cursor ? h('button', { type: 'button', onclick: () => older() }, 'Older') : null);
  };
  const older = async () => show(await fetchPage(cursor, PAGE), true);
  const reload = async () => show(await fetchPage(undefined, Math.min(1000, Math.max(PAGE, rows.length))), false);
  return { elements: [list, more], reload, reset: () => ((rows = []), reload()) };
}
