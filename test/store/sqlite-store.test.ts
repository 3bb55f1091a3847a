import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { queuedRun } from './run-record.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const file = () => path.join(tempDir(), 'nested', 'herald.db');


describe('sqlite store', () => {
  it('creates its folder, uses WAL and records the schema version', async () => {
    const store = openSqliteStore(file());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(1);
    await store.close();
  });

  it('refuses, naming storage.sqlite, a file it cannot open or one a newer herald migrated', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'a-folder.db'));
    expect(() => openSqliteStore(path.join(dir, 'a-folder.db'))).toThrow(ConfigError);
    expect(() => openSqliteStore(path.join(dir, 'a-folder.db'))).toThrow(/^storage\.sqlite: cannot open /);
    fs.writeFileSync(path.join(dir, 'text.db'), 'not a database, just text that is long enough to have a header');
    expect(() => openSqliteStore(path.join(dir, 'text.db'))).toThrow(/^storage\.sqlite: cannot open /);

    const db = path.join(dir, 'newer.db');
    const store = openSqliteStore(db);
    const known = store.db.pragma('user_version', { simple: true }) as number;
    await store.runs.insert(queuedRun('kept', 1));
    store.db.pragma(`user_version = ${known + 1}`);
    await store.close();
    expect(() => openSqliteStore(db)).toThrow(new RegExp(`storage\\.sqlite: .*schema version ${known + 1}, newer than this herald knows \\(${known}\\)`));
    // refused before touching anything: the data is still there for the newer herald
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(db);
    expect(raw.prepare('SELECT id FROM runs').all()).toEqual([{ id: 'kept' }]);
    raw.close();
  });

  it('events: dedupes against the previous pending event, caps pending, claims and completes', async () => {
    const store = openSqliteStore(file());
    const { events } = store;
    expect(await events.enqueue('main', 'a', 3)).toMatchObject({ text: 'a', status: 'pending' });
    expect(await events.enqueue('main', 'a', 3)).toBeUndefined();
    await events.enqueue('other', 'a', 3); // sessions are separate queues
    await events.enqueue('main', 'b', 3);
    await events.enqueue('main', 'c', 3);
    await events.enqueue('main', 'd', 3);
    expect(await events.countPending('main')).toBe(3);
    expect((await events.list('main', 10)).map((e) => `${e.text}:${e.status}`)).toEqual(['d:pending', 'c:pending', 'b:pending', 'a:dropped']);

    const lease = (owner: string, now = 100) => ({ owner, now, until: now + 1000 });
    const claimed = await events.claimPending('main', lease('a'));
    expect(claimed.map((e) => e.text)).toEqual(['b', 'c', 'd']);
    // claimed under a live lease: nobody else gets them
    expect(await events.claimPending('main', lease('b', 200))).toEqual([]);
    // while the heartbeat is looking at it, a repeat is still a repeat
    expect(await events.enqueue('main', 'd', 3)).toBeUndefined();
    await events.release(claimed.map((e) => e.id), 'someone else');
    expect(await events.countPending('main')).toBe(0);
    await events.release(claimed.map((e) => e.id), 'a');
    expect(await events.countPending('main')).toBe(3);
    const taken = await events.claimPending('main', lease('b', 300));
    // b died mid-turn: once its lease ran out, c takes the events
    const again = await events.claimPending('main', lease('c', 300 + 1001));
    expect(again.map((e) => e.id)).toEqual(taken.map((e) => e.id));
    await events.complete(again.map((e) => e.id));
    expect(await events.countPending('main')).toBe(0);
    // handled: the same text is news again
    expect(await events.enqueue('main', 'd', 3)).toMatchObject({ text: 'd', status: 'pending' });
    await store.close();
  });

  it('runs: insert, claim, progress and the unfinished ones in order, across a reopen', async () => {
    const db = file();
    let store = openSqliteStore(db);
    await store.runs.insert(queuedRun('r1', 1));
    await store.runs.insert(queuedRun('r2', 2));
    await store.runs.insert(queuedRun('r3', 3));
    expect((await store.runs.claim({ owner: 'a', now: 10, until: 1000 }, 1)).map((r) => r.id)).toEqual(['r1']);
    await store.runs.release(['r1'], 'a');
    const summary = (text: string) => ({ session: 'main', text, maxPending: 20 });
    await store.runs.complete('r3', { status: 'timed_out', error: 'timed out after 1s', at: 20, transcript: [], summary: summary('Hook r3: (timeout)') });
    await store.close();

    store = openSqliteStore(db);
    expect((await store.runs.claim({ owner: 'b', now: 11, until: 1000 }, 5)).map((r) => `${r.id}:${r.status}`)).toEqual(['r1:running', 'r2:running']);
    expect(await store.runs.get('r2')).toMatchObject({ status: 'running', startedAt: 11, action: { kind: 'agent', deliver: false } });
    expect(await store.runs.get('r3')).toMatchObject({ status: 'timed_out', error: 'timed out after 1s', finishedAt: 20, reply: null });
    const transcript = [
      { role: 'user' as const, content: 'hi', createdAt: 1, runId: 'r1' },
      { role: 'assistant' as const, content: 'ok', createdAt: 30, runId: 'r1' },
    ];
    expect(await store.runs.complete('r1', { status: 'succeeded', reply: 'ok', at: 30, transcript, summary: summary('Hook r1: ok') })).toBe(true);
    expect(await store.runs.get('r1')).toMatchObject({ status: 'succeeded', reply: 'ok' });
    // one transaction: transcript and summary are there together, and a second completion (a resumed run) changes nothing
    expect(await store.runs.complete('r1', { status: 'failed', error: 'again', at: 40, transcript, summary: summary('Hook r1: (error) again') })).toBe(false);
    expect((await store.sessions.messages(queuedRun('r1', 1).sessionKey)).map((m) => m.content)).toEqual(['hi', 'ok']);
    expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['Hook r1: ok', 'Hook r3: (timeout)']);
    expect(await store.runs.get('r1')).toMatchObject({ status: 'succeeded', reply: 'ok' });
    expect(await store.runs.get('nope')).toBeUndefined();
    await store.close();
  });

  it('sessions: the newest messages, oldest first', async () => {
    const store = openSqliteStore(file());
    for (let i = 1; i <= 5; i++) await store.sessions.append('s', { role: i % 2 ? 'user' : 'assistant', content: `m${i}`, createdAt: i, runId: 'r' });
    expect((await store.sessions.messages('s')).map((m) => m.content)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect((await store.sessions.messages('s', 2)).map((m) => m.content)).toEqual(['m4', 'm5']);
    expect(await store.sessions.exists('s')).toBe(true);
    expect(await store.sessions.exists('t')).toBe(false);
    await store.close();
  });

  it('sessions: a turn appended together is stored whole or not at all, and kept across a reopen', async () => {
    const db = file();
    const store = openSqliteStore(db);
    await store.sessions.appendMany('chat:a', [
      { role: 'user', content: 'question', createdAt: 1, meta: { agentId: 'x' } },
      { role: 'assistant', content: 'answer', createdAt: 2, meta: { agentId: 'x' } },
    ]);
    // the second message breaks a constraint: the first must not stay behind alone
    const broken = [{ role: 'user' as const, content: 'orphan', createdAt: 3 }, { role: 'assistant' as const, content: null as unknown as string, createdAt: 4 }];
    await expect(store.sessions.appendMany('chat:a', broken)).rejects.toThrow();
    await store.close();
    const again = openSqliteStore(db);
    expect((await again.sessions.messages('chat:a')).map((m) => [m.role, m.content, m.meta])).toEqual([
      ['user', 'question', { agentId: 'x' }],
      ['assistant', 'answer', { agentId: 'x' }],
    ]);
    await again.close();
  });

  it('state: get, set and atomic update', async () => {
    const store = openSqliteStore(file());
    expect(await store.state.get('k')).toBeUndefined();
    await store.state.set('k', { channel: 'telegram', to: '42' });
    expect(await store.state.get('k')).toEqual({ channel: 'telegram', to: '42' });
    expect(await store.state.update<number>('n', (n) => (n ?? 0) + 1)).toBe(1);
    expect(await store.state.update<number>('n', (n) => (n ?? 0) + 1)).toBe(2);
    await store.close();
  });

  it('state: delete one key, and prune a prefix by age (a prefix, not a LIKE pattern)', async () => {
    const path = file();
    const store = openSqliteStore(path);
    // LIKE 'seen_:%' would also take seenX:old (_ is a wildcard) and SEEN_:old (LIKE ignores case)
    const old = ['seen_:old-1', 'seen_:old-2', 'seenX:old', 'SEEN_:old', 'other:old'];
    for (const key of [...old, 'seen_:new']) await store.state.set(key, { at: 1 });
    const age = store.db.prepare('UPDATE state SET updated_at = ? WHERE key = ?');
    for (const key of old) age.run(1_000, key);

    expect(await store.state.deleteOlderThan('seen_:', 2_000)).toBe(2);
    expect(await store.state.deleteOlderThan('seen_:', 2_000)).toBe(0);
    await store.state.delete('seen_:new');
    await store.state.delete('no-such-key');
    await store.close();

    const reopened = openSqliteStore(path);
    for (const key of ['seen_:old-1', 'seen_:old-2', 'seen_:new']) expect(await reopened.state.get(key)).toBeUndefined();
    for (const key of ['seenX:old', 'SEEN_:old', 'other:old']) expect(await reopened.state.get(key)).toEqual({ at: 1 });
    await reopened.close();
  });
});
