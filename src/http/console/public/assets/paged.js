import { clear, h } from './dom.js';

const PAGE = 50;

/**
 * A newest-first list, a page at a time, with "Newer" and "Older" above it. `fetchPage(cursor, limit)`
 * answers one admin API page ({data, nextCursor}); `render(rows)` draws them.
 *
 * The pager's buttons are made once and stay in place above the rows: the one pressed keeps the
 * focus, and nothing above the reader's place changes size, so paging never throws the focus to
 * the page's top nor jumps the view (the old "Older" button was drawn again below the rows it
 * appended). A button that can no longer be used hands the focus to the other one. A live reload
 * asks again for the page shown: an older page keeps its cursor, so its rows hold still.
 */
export function pagedList(fetchPage, render) {
  const list = h('div', { class: 'paged-rows' });
  const status = h('span', { class: 'page-status', role: 'status' });
  const newer = h('button', { type: 'button', disabled: true, onclick: () => step(-1) }, '← Newer');
  const older = h('button', { type: 'button', disabled: true, onclick: () => step(1) }, 'Older →');
  const pager = h('div', { class: 'pager', role: 'group', 'aria-label': 'Pages' }, newer, status, older);
  // cursors[i]: the cursor of page i (page 0: none); next: the cursor of the page after the one shown
  let cursors = [undefined];
  let index = 0;
  let next = null;
  let busy = false;
  // the newest request's answer is the one drawn: a filter changed while a page was on its way
  // (or a live reload racing it) must not be overwritten by the older answer arriving last
  let asked = 0;

  const show = async () => {
    const ticket = ++asked;
    const page = await fetchPage(cursors[index], PAGE);
    if (ticket !== asked) return;
    next = page.nextCursor;
    clear(list, render(page.data));
    newer.disabled = index === 0;
    older.disabled = !next;
    status.textContent = `Page ${index + 1}`;
    // one page only (never while paging: it takes the first page and nothing after it)
    pager.hidden = index === 0 && !next;
  };
  const step = async (by) => {
    if (busy) return;
    busy = true;
    const pressed = by > 0 ? older : newer;
    try {
      if (by > 0) cursors[index + 1] = next;
      index = Math.max(0, index + by);
      cursors = cursors.slice(0, index + 1);
      await show();
    } finally {
      busy = false;
    }
    const target = !pressed.disabled ? pressed : pressed === older ? newer : older;
    if (!target.disabled) target.focus({ preventScroll: true });
  };
  const reload = async () => {
    if (!busy) await show();
  };
  const reset = () => {
    cursors = [undefined];
    index = 0;
    return show();
  };
  return { elements: [pager, list], reload, reset };
}
