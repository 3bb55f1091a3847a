import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { RunRecord } from '../../../src/store/port.js';
import { tempDir } from '../../helpers/start-herald.js';
import { queuedRun } from '../run-record.js';

// a claim returns the runs this process inserted from memory (src/store/sqlite/unclaimed-runs.ts):
// whatever else wrote their rows, a claimed run is the record a read of it gives
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
});

const open = () => {
  const file = path.join(tempDir(), 'herald.db');
  store = openSqliteStore(file);
  return { store, file };
};
const lease = (now: number) => ({ owner: 'me', now, until: now + 60_000 });
/** each claimed run beside its record as read after the claim */
const claimedAndRead = async (s: SqliteStore, now: number, limit = 10) => {
  const claimed = await s.runs.claim(lease(now), limit);
  return { claimed, read: await Promise.all(claimed.map((r) => s.runs.get(r.id) as Promise<RunRecord>)) };
};

describe('the runs a claim does not read back', () => {
  it('are the records a read gives, whatever the run carried', async () => {
    const { store } = open();
    await store.runs.insert({ ...queuedRun('a', 1), rerunOf: 'earlier', traceContext: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01' });
    await store.runs.insert(queuedRun('b', 2, { deliver: true, thinking: 'low', to: '42' }));
    const { claimed, read } = await claimedAndRead(store, 50);
    expect(claimed.map((r) => r.id)).toEqual(['a', 'b']);
    expect(claimed).toEqual(read);
    expect(claimed[0]).toMatchObject({ status: 'running', startedAt: 50, rerunOf: 'earlier' });
  });

  it('are read back when a scrub wrote their actions', async () => {
    const { store } = open();
    await store.runs.insert(queuedRun('i', 1, { deliver: true, channel: 'discord', to: 'interaction:1012345678901234567:i#token=aW50ZXJhY3Rpb246i', threadId: 't1' }));
    await store.runs.insert(queuedRun('p', 2));
    expect(await store.runs.scrubCredentials(['i'])).toBe(1);
    const { claimed, read } = await claimedAndRead(store, 50);
    expect(claimed.map((r) => r.id)).toEqual(['i', 'p']);
    expect(claimed).toEqual(read);
    expect(claimed[0]!.action.to).toBe('interaction:1012345678901234567:i#token=…');
  });

  it('are read back when another connection wrote to the file (a CLI command, a second process)', async () => {
    const { store, file } = open();
    await store.runs.insert(queuedRun('o', 1));
    const other = new Database(file);
    other.prepare("UPDATE runs SET message = 'changed elsewhere' WHERE id = 'o'").run();
    other.close();
    const { claimed, read } = await claimedAndRead(store, 50);
    expect(claimed).toEqual(read);
    expect(claimed[0]!.message).toBe('changed elsewhere');
  });

  it('mix with the runs read back in the claim’s order, and a run given back is read again', async () => {
    const { store } = open();
    await store.runs.insert(queuedRun('x', 1));
    // inserted by another process's lease, released to the queue: never held here
    await store.runs.insert(queuedRun('y', 2), lease(2));
    await store.runs.release(['y'], 'me');
    await store.runs.insert(queuedRun('z', 3));
    const first = await claimedAndRead(store, 50);
    expect(first.claimed.map((r) => r.id)).toEqual(['x', 'y', 'z']);
    expect(first.claimed).toEqual(first.read);
    await store.runs.checkpoint('x', 'me', { round: 1 }, []);
    await store.runs.release(['x'], 'me');
    const again = await claimedAndRead(store, 60);
    expect(again.claimed.map((r) => r.id)).toEqual(['x']);
    expect(again.claimed).toEqual(again.read);
    expect(again.claimed[0]).toMatchObject({ startedAt: 50, turnState: { round: 1 } });
  });
});
