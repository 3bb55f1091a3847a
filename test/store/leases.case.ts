import { expect, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { queuedRun } from './run-record.js';

/** two handles on one database: two replicas (or two processes) sharing a store */
export type TwoReplicas = () => Promise<readonly [Store, Store]>;

const lease = (owner: string, now: number, ms = 1000) => ({ owner, now, until: now + ms });

/**
 * The port's claim rules, for every adapter: work is claimed with a lease, never by two holders
 * at once, retaken once a lease runs out, and a session's runs go one at a time in order.
 */
export function leaseCases(twoReplicas: TwoReplicas, options: { signalsCrossProcesses: boolean }): void {
  it('claims: two replicas claiming at once never get the same run, and together get every one', async () => {
    const [a, b] = await twoReplicas();
    const ids = Array.from({ length: 40 }, (_, i) => `run-${String(i).padStart(2, '0')}`);
    for (const id of ids) await a.runs.insert(queuedRun(id));
    const taken: string[][] = [[], []];
    await Promise.all(
      [a, b].map(async (store, i) => {
        for (;;) {
          const runs = await store.runs.claim(lease(`replica-${i}`, 100), 3);
          if (!runs.length) return;
          taken[i]!.push(...runs.map((r) => r.id));
          for (const run of runs) {
            const summary = { session: 'main', text: `done ${run.id}`, maxPending: 100 };
            expect(await store.runs.complete(run.id, { status: 'succeeded', reply: 'ok', at: 200, transcript: [], summary })).toBe(true);
          }
        }
      }),
    );
    expect(taken[0]!.filter((id) => taken[1]!.includes(id))).toEqual([]);
    expect([...taken[0]!, ...taken[1]!].sort()).toEqual(ids);
  });

  it("claims: a session's runs go one at a time, in order, across replicas", async () => {
    const [a, b] = await twoReplicas();
    const inSession = (id: string) => ({ ...queuedRun(id), sessionKey: 'hook:shared' });
    await a.runs.insert(inSession('first'));
    await b.runs.insert(inSession('second'));
    await a.runs.insert(queuedRun('elsewhere'));
    expect((await a.runs.claim(lease('a', 100), 10)).map((r) => r.id)).toEqual(['first', 'elsewhere']);
    // the second turn waits for the first, even on another replica with free slots
    expect(await b.runs.claim(lease('b', 100), 10)).toEqual([]);
    const summary = { session: 'main', text: 'done', maxPending: 100 };
    await a.runs.complete('first', { status: 'succeeded', reply: 'ok', at: 150, transcript: [], summary });
    expect((await b.runs.claim(lease('b', 160), 10)).map((r) => r.id)).toEqual(['second']);
  });

  it("claims: runs inserted into a busy session by two replicas while they drain it each run once, one at a time, none left waiting", async () => {
    const [a, b] = await twoReplicas();
    const inSession = (id: string) => ({ ...queuedRun(id), sessionKey: 'hook:busy' });
    const ids = Array.from({ length: 24 }, (_, i) => `busy-${String(i).padStart(2, '0')}`);
    let inserting = true;
    const done: string[] = [];
    const running = new Set<string>();
    const summary = { session: 'main', text: 'done', maxPending: 100 };
    // the inserts race the completions of the run ahead, on both replicas: a run inserted as the
    // last one of its session finishes must neither start beside it nor be left waiting forever
    const insert = (async () => {
      for (const [i, id] of ids.entries()) await (i % 2 ? b : a).runs.insert(inSession(id));
      inserting = false;
    })();
    const drain = (store: Store, owner: string) => async () => {
      while (inserting || done.length < ids.length) {
        const runs = await store.runs.claim(lease(owner, Date.now(), 60_000), 5);
        for (const run of runs) {
          expect(running.size).toBe(0);
          running.add(run.id);
          await new Promise((r) => setImmediate(r));
          running.delete(run.id);
          expect(await store.runs.complete(run.id, { status: 'succeeded', reply: 'ok', at: Date.now(), transcript: [], summary })).toBe(true);
          done.push(run.id);
        }
        if (!runs.length) await new Promise((r) => setTimeout(r, 5));
      }
    };
    await Promise.all([insert, drain(a, 'a')(), drain(b, 'b')()]);
    expect(done).toEqual(ids);
    expect((await a.probe.counts()).runs).toEqual({ queued: 0, running: 0, waitingApproval: 0 });
  });

  it('claims: a dead replica loses its runs when the lease runs out; renewing keeps them; a release queues them again', async () => {
    const [a, b] = await twoReplicas();
    for (const id of ['kept', 'lost', 'handed-back']) await a.runs.insert(queuedRun(id));
    expect((await a.runs.claim(lease('a', 100), 3)).map((r) => r.id)).toEqual(['kept', 'lost', 'handed-back']);
    expect(await a.runs.renew(['kept'], 'a', 5000)).toEqual(['kept']);
    expect(await b.runs.renew(['kept'], 'b', 5000)).toEqual([]);
    await a.runs.release(['handed-back'], 'a');
    expect(await b.runs.get('handed-back')).toMatchObject({ status: 'queued' });
    // at 1500 the lease of `lost` (until 1100) ran out; `kept` was renewed to 5000
    expect((await b.runs.claim(lease('b', 1500), 10)).map((r) => r.id).sort()).toEqual(['handed-back', 'lost']);
    const summary = { session: 'main', text: 'done', maxPending: 100 };
    // the first finisher wins; the replica that lost the run cannot complete it again
    expect(await b.runs.complete('lost', { status: 'succeeded', reply: 'by b', at: 1600, transcript: [], summary })).toBe(true);
    expect(await a.runs.complete('lost', { status: 'succeeded', reply: 'by a', at: 1700, transcript: [], summary })).toBe(false);
    expect(await a.runs.get('lost')).toMatchObject({ status: 'succeeded', reply: 'by b' });
  });

  it('events: claimed by one heartbeat holder at a time, retaken after its lease, given back on release', async () => {
    const [a, b] = await twoReplicas();
    for (const text of ['one', 'two']) await a.events.enqueue('main', text, 20);
    const [first, second] = await Promise.all([a.events.claimPending('main', lease('a', 100), 20), b.events.claimPending('main', lease('b', 100), 20)]);
    expect([...first, ...second].map((e) => e.text).sort()).toEqual(['one', 'two']);
    const held = first.length ? first : second;
    const holder = first.length ? 'a' : 'b';
    expect(await b.events.claimPending('main', lease('c', 500), 20)).toEqual([]);
    await a.events.renew(held.map((e) => e.id), holder, 3000);
    expect(await b.events.claimPending('main', lease('c', 2000), 20)).toEqual([]);
    expect((await b.events.claimPending('main', lease('c', 3001), 20)).map((e) => e.text)).toEqual(held.map((e) => e.text));
    await b.events.release(held.map((e) => e.id), 'c');
    expect(await a.events.countPending('main')).toBe(2);
  });

  it('state: concurrent updates of one key from two replicas never lose one', async () => {
    const [a, b] = await twoReplicas();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).state.update<number>('counter', (n) => (n ?? 0) + 1)),
    );
    expect(await a.state.get('counter')).toBe(20);
  });

  // SQLite serves one process per file: its signals stay in that process
  const reach = options.signalsCrossProcesses ? ['a', 'b'] : ['a'];
  it(`signals: a publish reaches the subscribers of ${options.signalsCrossProcesses ? 'both replicas' : 'its own process'}`, async () => {
    const [a, b] = await twoReplicas();
    const heard: string[] = [];
    const stops = [a.signals.subscribe('topic', () => heard.push('a')), b.signals.subscribe('topic', () => heard.push('b'))];
    a.signals.publish('topic');
    // the publisher's own subscribers hear it before publish returns
    expect(heard).toEqual(['a']);
    for (let i = 0; i < 200 && !reach.every((r) => heard.includes(r)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(new Set(heard)).toEqual(new Set(reach));
    stops.forEach((stop) => stop());
  });
}
