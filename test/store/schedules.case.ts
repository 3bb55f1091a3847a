import { describe, expect, it } from 'vitest';
import { scheduleJobSchema } from '../../src/config/sections/schedules-schema.js';
import type { StoredSchedule } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

const job = (id: string) =>
  scheduleJobSchema.parse({ id, schedule: { kind: 'every', every: '1m' }, sessionTarget: 'isolated', payload: { kind: 'agentTurn', message: 'look' } });

const stored = (id: string, nextDue: number | null, enabled = true): StoredSchedule => ({ id, origin: 'api', job: job(id), enabled, nextDue, createdAt: 1, updatedAt: 1 });
const fire = (firedAt: number, runId: string | null = null) => ({ firedAt, outcome: 'claimed' as const, runId, detail: null });

/** scheduled jobs: a due time is claimed by one claimer, whatever their number and the clock */
export function schedulesCases(open: OpenStore) {
  describe('schedules', () => {
    it('keeps jobs with their next due time, a restart or a second writer of one job keeping it', async () => {
      const store = await open();
      expect(await store.schedules.nextDue()).toBeUndefined();
      const put = await store.schedules.put(stored('a', 60_000), false);
      expect(put).toMatchObject({ id: 'a', origin: 'api', enabled: true, nextDue: 60_000, job: { schedule: { kind: 'every', every: '1m' } } });
      // written again without reschedule (a restart with the same config): the due time stays
      expect((await store.schedules.put({ ...stored('a', 99_000), updatedAt: 2 }, false)).nextDue).toBe(60_000);
      expect((await store.schedules.put(stored('a', 120_000), true)).nextDue).toBe(120_000);
      await store.schedules.put(stored('b', 30_000), false);
      await store.schedules.put(stored('c', 10_000, false), false);
      await store.schedules.put(stored('spent', null), false);
      expect(await store.schedules.nextDue()).toBe(30_000);
      expect((await store.schedules.due(200_000, 10)).map((s) => s.id)).toEqual(['b', 'a']);
      expect((await store.schedules.list()).map((s) => s.id)).toEqual(['a', 'b', 'c', 'spent']);
      const again = await open(store);
      expect(await again.schedules.get('a')).toMatchObject({ nextDue: 120_000 });
      expect(await again.schedules.delete('a')).toBe(true);
      expect(await again.schedules.delete('a')).toBe(false);
      expect(await store.schedules.get('a')).toBeUndefined();
    });

    it('gives a due time to one claimer of many handles, and records its fire once', async () => {
      const a = await open();
      const b = await open(a);
      await a.schedules.put(stored('job', 60_000), false);
      const claims = await Promise.all([a, b, a, b].map((s, i) => s.schedules.claimFire('job', 60_000, 120_000, fire(60_500 + i, `run-${i}`))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      const fires = await b.schedules.fires('job', 10);
      expect(fires).toHaveLength(1);
      expect(fires[0]).toMatchObject({ scheduleId: 'job', dueAt: 60_000, outcome: 'claimed', runId: `run-${claims.indexOf(true)}` });
      expect((await a.schedules.get('job'))!.nextDue).toBe(120_000);
    });

    it('never claims a due time twice: a clock stepped back finds nothing due again', async () => {
      const store = await open();
      await store.schedules.put(stored('job', 60_000), false);
      expect(await store.schedules.claimFire('job', 60_000, 120_000, fire(61_000))).toBe(true);
      // the clock went back to before the fire: the due time read then is gone
      expect(await store.schedules.due(60_000, 10)).toEqual([]);
      expect(await store.schedules.claimFire('job', 60_000, 120_000, fire(60_000))).toBe(false);
      expect(await store.schedules.fires('job', 10)).toHaveLength(1);
    });

    it('claims nothing of a disabled or deleted job, and settles a fire once', async () => {
      const store = await open();
      await store.schedules.put(stored('off', 60_000, false), false);
      expect(await store.schedules.claimFire('off', 60_000, 120_000, fire(61_000))).toBe(false);
      await store.schedules.put(stored('gone', 60_000), false);
      await store.schedules.delete('gone');
      expect(await store.schedules.claimFire('gone', 60_000, 120_000, fire(61_000))).toBe(false);
      await store.schedules.put(stored('job', 60_000), false);
      await store.schedules.claimFire('job', 60_000, null, fire(61_000, 'r1'));
      expect(await store.schedules.nextDue()).toBeUndefined();
      expect((await store.schedules.unsettled(61_000, 10)).map((f) => f.runId)).toEqual(['r1']);
      expect(await store.schedules.unsettled(60_999, 10)).toEqual([]);
      expect(await store.schedules.settleFire('job', 60_000, 'dispatched')).toBe(true);
      expect(await store.schedules.settleFire('job', 60_000, 'failed', 'late')).toBe(false);
      expect(await store.schedules.fires('job', 10)).toMatchObject([{ outcome: 'dispatched', runId: 'r1' }]);
      expect(await store.schedules.unsettled(100_000, 10)).toEqual([]);
    });

    it("adds a main fire's event in the commit that marks it: a claimed fire made again adds no second event", async () => {
      const a = await open();
      const b = await open(a);
      const event = { session: 'main', text: 'call the supplier', maxPending: 20 };
      await a.schedules.put(stored('remind', 60_000), false);
      expect(await a.schedules.claimFire('remind', 60_000, 120_000, fire(60_100))).toBe(true);
      // made by two handles at once (the process after a restart and a replica retaking it): one adds the event
      const made = await Promise.all([a, b, a, b].map((s) => s.schedules.settleFireWithEvent('remind', 60_000, event)));
      expect(made.filter((m) => m.made)).toHaveLength(1);
      const added = made.find((m) => m.made)!.event!;
      expect(added).toMatchObject({ session: 'main', text: 'call the supplier', status: 'pending' });
      expect(made.filter((m) => !m.made).every((m) => m.event === undefined)).toBe(true);
      expect(await b.schedules.fires('remind', 10)).toMatchObject([{ dueAt: 60_000, outcome: 'dispatched', detail: `event ${added.id}` }]);
      expect(await b.schedules.unsettled(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      // made once more after a restart: the fire is marked, so nothing is added
      const again = await open(a);
      expect(await again.schedules.settleFireWithEvent('remind', 60_000, event)).toEqual({ made: false });
      expect((await again.events.list('main', 10)).map((e) => e.id)).toEqual([added.id]);
      // a fire nobody claimed adds nothing either
      expect(await again.schedules.settleFireWithEvent('remind', 120_000, event)).toEqual({ made: false });
      expect(await again.events.countPending('main')).toBe(1);
    });

    it("marks a main fire whose event repeats the pending one, and keeps the detail it was claimed with, followed by the event it made", async () => {
      const store = await open();
      const event = { session: 'main', text: 'tick', maxPending: 20 };
      await store.schedules.put(stored('tick', 60_000), false);
      await store.schedules.claimFire('tick', 60_000, 120_000, fire(60_000));
      const first = await store.schedules.settleFireWithEvent('tick', 60_000, event);
      await store.schedules.claimFire('tick', 120_000, 180_000, fire(120_000));
      // the queue's rule: the same text while the one before is pending is not added, and the fire is made
      expect(await store.schedules.settleFireWithEvent('tick', 120_000, event)).toEqual({ made: true });
      await store.schedules.recordFire({ scheduleId: 'tick', dueAt: 130_000, firedAt: 130_000, outcome: 'claimed', runId: null, detail: 'run now' });
      const now = await store.schedules.settleFireWithEvent('tick', 130_000, { ...event, text: 'now' });
      expect(now).toMatchObject({ made: true, event: { text: 'now' } });
      expect((await store.schedules.fires('tick', 10)).map((f) => [f.outcome, f.detail])).toEqual([
        ['dispatched', `run now; event ${now.event!.id}`],
        ['dispatched', 'event repeated the one before it'],
        ['dispatched', `event ${first.event!.id}`],
      ]);
      expect((await store.events.list('main', 10)).map((e) => e.text)).toEqual(['now', 'tick']);
    });

    it('lists the fires of every job newest due first, filtered and paged as the receipts are', async () => {
      const store = await open();
      const record = (scheduleId: string, dueAt: number, firedAt: number, outcome: 'dispatched' | 'skipped' | 'missed' | 'failed', runId: string | null = null) =>
        store.schedules.recordFire({ scheduleId, dueAt, firedAt, outcome, runId, detail: outcome === 'skipped' ? 'overlap' : null });
      await record('a', 1_000, 1_010, 'dispatched', 'run-a1');
      await record('b', 1_000, 1_005, 'skipped');
      await record('a', 2_000, 9_000, 'dispatched', 'run-a2');
      await record('b', 3_000, 3_001, 'missed');
      await record('a', 4_000, 4_002, 'failed');
      const all = await store.schedules.listFires({ limit: 10 });
      expect(all.map((f) => `${f.scheduleId}@${f.dueAt}`)).toEqual(['a@4000', 'b@3000', 'a@2000', 'b@1000', 'a@1000']);
      expect((await store.schedules.listFires({ limit: 10, scheduleId: 'b' })).map((f) => f.dueAt)).toEqual([3_000, 1_000]);
      expect((await store.schedules.listFires({ limit: 10, outcome: 'dispatched' })).map((f) => f.runId)).toEqual(['run-a2', 'run-a1']);
      expect((await store.schedules.listFires({ limit: 10, runId: 'run-a1' })).map((f) => f.dueAt)).toEqual([1_000]);
      // started more than 1 s after its due time
      expect((await store.schedules.listFires({ limit: 10, lateByMs: 1_000 })).map((f) => f.runId)).toEqual(['run-a2']);
      // not run as due: skipped, missed, or late
      expect((await store.schedules.listFires({ limit: 10, notAsDue: true, lateByMs: 1_000 })).map((f) => `${f.scheduleId}@${f.dueAt}`)).toEqual(['b@3000', 'a@2000', 'b@1000']);
      expect((await store.schedules.listFires({ limit: 10, notAsDue: true })).map((f) => f.outcome)).toEqual(['missed', 'skipped']);
      expect((await store.schedules.listFires({ limit: 10, since: 2_000, until: 3_000 })).map((f) => f.dueAt)).toEqual([3_000, 2_000]);
      expect((await store.schedules.listFires({ limit: 10, q: 'run-a' })).map((f) => f.dueAt)).toEqual([2_000, 1_000]);
      // the cursor: (due time, job id) of the last row seen
      const [first, second] = await store.schedules.listFires({ limit: 2 });
      expect((await store.schedules.listFires({ limit: 2, after: { at: second!.dueAt, id: second!.scheduleId } })).map((f) => `${f.scheduleId}@${f.dueAt}`)).toEqual(['a@2000', 'b@1000']);
      expect(first!.scheduleId).toBe('a');
    });
  });
}
