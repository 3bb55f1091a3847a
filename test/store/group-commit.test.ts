import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { queuedRun } from './run-record.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { tempDir } from '../helpers/start-herald.js';

// writes asked for in one event-loop turn share a commit (src/store/sqlite/group-commit.ts)
describe('group commit of store writes', () => {
  it('keeps every write of a burst, each resolved only once it is durable', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const store = openSqliteStore(file);
    const ids = Array.from({ length: 50 }, (_, i) => `run-${i}`);
    await Promise.all([...ids.map((id) => store.runs.insert(queuedRun(id))), ...ids.map((id) => store.events.enqueue('s', `event ${id}`, 100))]);
    await store.close();

    const reopened = openSqliteStore(file);
    expect((await reopened.runs.claim({ owner: 'test', now: 1, until: 2 }, 1000)).map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await reopened.events.countPending('s')).toBe(50);
    await reopened.close();
  });

  it('fails a refused write alone: the others of its group are committed', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const store = openSqliteStore(file);
    await store.runs.insert(queuedRun('taken'));
    const results = await Promise.allSettled([store.runs.insert(queuedRun('a')), store.runs.insert(queuedRun('taken')), store.runs.insert(queuedRun('b'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await store.close();

    const reopened = openSqliteStore(file);
    expect((await reopened.runs.claim({ owner: 'test', now: 1, until: 2 }, 1000)).map((r) => r.id).sort()).toEqual(['a', 'b', 'taken']);
    await reopened.close();
  });

  it('commits after one turn once second turns brought no write many times in a row, and waits two again once a probe\'s second turn brings one', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x TEXT)');
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    const write = () => commits.run(() => insert.run('x'));
    /** a write that tells the attempt it ran in */
    const group = () => commits.run(() => (insert.run('x'), commits.generation));
    // the event-loop turns (check phases) a write waits until it is committed
    const turnsTo = async (written: Promise<unknown>) => {
      let done = false;
      void written.then(() => (done = true));
      let turns = 0;
      while (!done) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
      return turns;
    };
    // a lone writer: each group's second turn brings nothing, until groups stop waiting for it
    const turns = [await turnsTo(write())];
    while (turns.length < 1000 && turns.at(-1) === 2) turns.push(await turnsTo(write()));
    expect(turns.length).toBeGreaterThan(1);
    expect(turns.at(-1)).toBe(1);
    expect(await turnsTo(write())).toBe(1);
    // until a probe (a group waiting the second turn again) meets a write in it
    let probed = false;
    for (let i = 0; i < 100 && !probed; i++) {
      let done = false;
      const first = group();
      void first.then(() => (done = true));
      await new Promise((resolve) => setImmediate(resolve));
      if (!done) {
        probed = true;
        // asked in the probe's second turn: committed with the first
        expect(await group()).toBe(await first);
      }
      await first;
    }
    expect(probed).toBe(true);
    expect(await turnsTo(write())).toBe(2);
    db.close();
  });

  it("runs a group's `last` work once, after its writes, in its transaction; a throwing one fails alone", async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x TEXT)');
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    const seen: string[] = [];
    const count = () => {
      seen.push(`count ${(db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n} in ${db.inTransaction ? 'transaction' : 'none'}`);
    };
    const writes = [commits.run(() => insert.run('a')), commits.run(() => insert.run('b'))];
    commits.last(count);
    commits.last(count);
    commits.last(() => {
      throw new Error('tail failed');
    });
    writes.push(commits.run(() => insert.run('c')));
    await Promise.all(writes);
    expect(seen).toEqual(['count 3 in transaction']);
    expect((db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n).toBe(3);
    // the next group has its own
    await commits.run(() => insert.run('d'));
    expect(seen).toHaveLength(1);
    db.close();
  });

  it('undoes the whole of a write that fails half-way (several statements, no savepoint of its own), alone or in a group', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x TEXT PRIMARY KEY)');
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
    // writes its first row, then fails on the second (a duplicate key)
    const halfWay = (first: string) => () => {
      insert.run(first);
      insert.run('taken');
    };
    await commits.run(() => insert.run('taken'));
    const attempts: string[] = [];
    const results = await Promise.allSettled([
      commits.run(() => {
        attempts.push('a');
        insert.run('a');
      }),
      commits.run(halfWay('half')),
      commits.run(() => insert.run('b')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // the group ran again, each write under its own savepoint
    expect(attempts).toEqual(['a', 'a']);
    await expect(commits.run(halfWay('alone'))).rejects.toThrow(/UNIQUE/);
    expect((db.prepare('SELECT x FROM t ORDER BY x').all() as { x: string }[]).map((r) => r.x)).toEqual(['a', 'b', 'taken']);
    db.close();
  });

  it('undoes the rows an OR FAIL statement wrote before it failed (no statement journal behind it), alone or in a group', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x TEXT PRIMARY KEY)');
    const commits = new GroupCommit(db);
    // OR FAIL keeps a failing statement's earlier rows: its first row is in when the second fails
    const pair = db.prepare('INSERT OR FAIL INTO t (x) VALUES (?), (?)');
    await commits.run(() => pair.run('taken', 'kept'));
    const results = await Promise.allSettled([commits.run(() => pair.run('a1', 'a2')), commits.run(() => pair.run('half', 'taken')), commits.run(() => pair.run('b1', 'b2'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    await expect(commits.run(() => pair.run('alone', 'taken'))).rejects.toThrow(/UNIQUE/);
    expect((db.prepare('SELECT x FROM t ORDER BY x').all() as { x: string }[]).map((r) => r.x)).toEqual(['a1', 'a2', 'b1', 'b2', 'kept', 'taken']);
    db.close();
  });

  it("runs a completion's claim once when its group is run again because another write failed", async () => {
    const store = openSqliteStore(path.join(tempDir(), 'herald.db'));
    const inBusy = (id: string, at: number) => ({ ...queuedRun(id, at), sessionKey: 'hook:busy' });
    await store.runs.insert(inBusy('b1', 1));
    await store.runs.insert(inBusy('b2', 2));
    await store.runs.insert(queuedRun('other', 3));
    const lease = { owner: 'a', now: 5, until: Date.now() + 60_000 };
    expect((await store.runs.claim(lease, 1)).map((r) => r.id)).toEqual(['b1']);
    const completion = {
      status: 'succeeded' as const,
      reply: 'ok',
      at: 6,
      transcript: [{ role: 'user' as const, content: 'hi', runId: 'b1', meta: null, createdAt: 6 }],
      summary: { session: 'main', text: 'Hook b1: ok', maxPending: 20 },
    };
    // in one group: b1's completion (its claim runs after the group's writes) and a write that fails
    const [completed, duplicate] = await Promise.allSettled([store.runs.completeAndClaimNext('b1', completion, { ...lease, now: 6 }), store.runs.insert(queuedRun('other', 3))]);
    expect(duplicate.status).toBe('rejected');
    expect(completed).toMatchObject({ status: 'fulfilled', value: { finished: true, claimed: [{ id: 'b2', status: 'running' }] } });
    expect(await store.runs.get('b1')).toMatchObject({ status: 'succeeded' });
    // the rolled-back attempt's claim was not kept beside the second one's: `other` is still queued
    expect(await store.runs.get('other')).toMatchObject({ status: 'queued' });
    expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['Hook b1: ok']);
    await store.close();
  });

  it('commits writes still queued when the store closes', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const store = openSqliteStore(file);
    const pending = store.runs.insert(queuedRun('late'));
    await store.close();
    await expect(pending).resolves.toBeUndefined();

    const reopened = openSqliteStore(file);
    expect(await reopened.runs.get('late')).toMatchObject({ id: 'late', status: 'queued' });
    await reopened.close();
  });

  it('tells an after-commit listener the value of a write once committed, not one that failed, and only for the write asked last', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x TEXT UNIQUE)');
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT OR FAIL INTO t (x) VALUES (?)');
    const told: string[] = [];
    const tell = (label: string) => (value: unknown) => told.push(`${label} ${String(value)} ${(db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n} ${db.inTransaction ? 'in transaction' : 'committed'}`);
    const first = commits.run(() => (insert.run('a'), 'first'));
    const second = commits.run(() => (insert.run('b'), 'second'));
    // not the write asked last: the caller reacts to its promise instead
    expect(commits.afterCommit(first, tell('first'))).toBe(false);
    expect(commits.afterCommit(second, tell('second'))).toBe(true);
    // one listener per write
    expect(commits.afterCommit(second, tell('again'))).toBe(false);
    const refused = commits.run(() => (insert.run('a'), 'refused'));
    expect(commits.afterCommit(refused, tell('refused'))).toBe(true);
    await expect(second).resolves.toBe('second');
    await expect(refused).rejects.toThrow();
    expect(told).toEqual(['second second 2 committed']);
    // a write already committed is not queued any more
    expect(commits.afterCommit(second, tell('late'))).toBe(false);
    await first;
    db.close();
  });
});
