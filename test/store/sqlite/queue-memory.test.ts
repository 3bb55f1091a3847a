import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/start-herald.js';

// the enqueue keeps each session's queue in memory between commits (src/store/sqlite/queue-memory.ts):
// whatever else changes the events table, the queue behaves as if it read the table every time
let store: SqliteStore | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await store?.close();
});

const open = () => {
  const file = path.join(tempDir(), 'herald.db');
  store = openSqliteStore(file);
  return { store, file };
};
const statuses = async (s: SqliteStore) => (await s.events.list('main', 100)).map((e) => `${e.text}:${e.status}`);

describe('the SQLite event queue in memory', () => {
  it('sees events deleted or changed by another connection on the file (a CLI command, a second process)', async () => {
    const { store, file } = open();
    for (const text of ['a', 'b', 'c']) await store.events.enqueue('main', text, 3);
    const other = new Database(file);
    other.prepare("DELETE FROM events WHERE text IN ('a', 'c')").run();
    other.close();
    // c is gone: the same text is news, and b is the oldest pending
    expect(await store.events.enqueue('main', 'c', 3)).toMatchObject({ text: 'c', status: 'pending' });
    await store.events.enqueue('main', 'd', 3);
    await store.events.enqueue('main', 'e', 3);
    expect(await statuses(store)).toEqual(['e:pending', 'd:pending', 'c:pending', 'b:dropped']);
    expect(await store.probe.counts()).toMatchObject({ eventsPending: 3, eventsDropped: 1 });
  });

  it('drops by the database when it disagrees with the memory (an event it holds as pending is not)', async () => {
    const { store } = open();
    for (const text of ['a', 'b', 'c']) await store.events.enqueue('main', text, 3);
    // on the store's own connection, as no writer of herald's does: nothing tells the memory
    store.db.prepare("UPDATE events SET status = 'done' WHERE text = 'a'").run();
    await store.events.enqueue('main', 'd', 3);
    expect(await statuses(store)).toEqual(['d:pending', 'c:pending', 'b:pending', 'a:done']);
    await store.events.enqueue('main', 'e', 3);
    expect(await statuses(store)).toEqual(['e:pending', 'd:pending', 'c:pending', 'b:dropped', 'a:done']);
  });

  it('checks a repeat against the newest event by time, as the lists order them, when the clock was set back', async () => {
    const { store } = open();
    const now = vi.spyOn(Date, 'now').mockReturnValue(2_000_000);
    await store.events.enqueue('main', 'late', 20);
    now.mockReturnValue(1_000_000);
    await store.events.enqueue('main', 'early', 20);
    // 'late' is still the newest: its repeat is skipped, 'early' again is news
    expect(await store.events.enqueue('main', 'late', 20)).toBeUndefined();
    expect(await store.events.enqueue('main', 'early', 20)).toMatchObject({ text: 'early' });
  });

  it('holds many sessions apart, each with its own cap', async () => {
    const { store } = open();
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.events.enqueue(`s${i % 4}`, `event ${i}`, 5)));
    for (let s = 0; s < 4; s++) expect(await store.events.countPending(`s${s}`)).toBe(5);
    expect(await store.probe.counts()).toMatchObject({ eventsPending: 20, eventsDropped: 20 });
  });
});
