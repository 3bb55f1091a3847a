import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewAlert } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

const MINUTE = 60_000;
const alert = (incidentKey: string, raisedAt: number, cooldownKey = incidentKey): NewAlert => ({
  id: randomUUID(),
  condition: 'runs.failing',
  incidentKey,
  cooldownKey,
  subject: 'github',
  summary: `3 runs of mapping github failed (${incidentKey})`,
  raisedAt,
});

/** the incidents alert rules raise: one open per key, whoever raises it, and a cooldown between notices */
export function alertsCases(open: OpenStore) {
  describe('alerts', () => {
    it('opens one incident per key, resolves it once, and lists newest first with filters', async () => {
      const store = await open();
      const first = await store.alerts.raise(alert('runs.failing:github', 1000), 30 * MINUTE);
      expect(first).toMatchObject({ status: 'open', notified: true, raisedAt: 1000, resolvedAt: null, raisedQueuedAt: null });
      expect(await store.alerts.raise(alert('runs.failing:github', 2000), 30 * MINUTE)).toBeUndefined();
      await store.alerts.raise({ ...alert('queue.stale', 3000), condition: 'queue.stale', subject: 'runs' }, 30 * MINUTE);
      expect((await store.alerts.open()).map((a) => a.incidentKey)).toEqual(['runs.failing:github', 'queue.stale']);

      expect(await store.alerts.resolve('runs.failing:github', 4000)).toMatchObject({ id: first!.id, status: 'resolved', resolvedAt: 4000 });
      expect(await store.alerts.resolve('runs.failing:github', 5000)).toBeUndefined();
      expect(await store.alerts.get(first!.id)).toMatchObject({ status: 'resolved', resolvedAt: 4000 });

      expect((await store.alerts.list({ limit: 10 })).map((a) => a.incidentKey)).toEqual(['queue.stale', 'runs.failing:github']);
      expect((await store.alerts.list({ limit: 10, status: 'resolved' })).map((a) => a.id)).toEqual([first!.id]);
      expect((await store.alerts.list({ limit: 10, condition: 'queue.stale' })).map((a) => a.subject)).toEqual(['runs']);
      expect((await store.alerts.list({ limit: 10, q: 'RUNS.FAILING' })).map((a) => a.id)).toEqual([first!.id]);
      const [newest] = await store.alerts.list({ limit: 1 });
      expect((await store.alerts.list({ limit: 10, after: { at: newest!.raisedAt, id: newest!.id } })).map((a) => a.id)).toEqual([first!.id]);
    });

    it('stores an incident raised again within the cooldown without notifying it', async () => {
      const store = await open();
      await store.alerts.raise(alert('k', 0), 30 * MINUTE);
      await store.alerts.resolve('k', MINUTE);
      const again = await store.alerts.raise(alert('k', 10 * MINUTE), 30 * MINUTE);
      expect(again).toMatchObject({ status: 'open', notified: false });
      await store.alerts.resolve('k', 11 * MINUTE);
      // an incident of another key sharing the cooldown key is quiet too; after the cooldown, notified again
      expect(await store.alerts.raise(alert('k2', 20 * MINUTE, 'k'), 30 * MINUTE)).toMatchObject({ notified: false });
      expect(await store.alerts.raise(alert('k', 31 * MINUTE), 30 * MINUTE)).toMatchObject({ notified: true });
    });

    it('keeps the notices not yet queued until they are', async () => {
      const store = await open();
      const a = (await store.alerts.raise(alert('a', 1000), 0))!;
      expect((await store.alerts.noticesDue(999, 10)).length).toBe(0);
      expect((await store.alerts.noticesDue(1000, 10)).map((r) => r.id)).toEqual([a.id]);
      await store.alerts.noticeQueued(a.id, 'raised', 1001);
      expect(await store.alerts.noticesDue(5000, 10)).toEqual([]);
      await store.alerts.resolve('a', 2000);
      expect((await store.alerts.noticesDue(5000, 10)).map((r) => [r.id, r.raisedQueuedAt, r.resolvedQueuedAt])).toEqual([[a.id, 1001, null]]);
      await store.alerts.noticeQueued(a.id, 'resolved', 2001);
      expect(await store.alerts.noticesDue(5000, 10)).toEqual([]);
    });

    it('lets one of several processes raising one incident at once open it, and one resolve it', async () => {
      const a = await open();
      const b = await open(a);
      const c = await open(a);
      const raised = await Promise.all([a, b, c].map((s) => s.alerts.raise(alert('once', 1000), MINUTE)));
      expect(raised.filter(Boolean)).toHaveLength(1);
      const resolved = await Promise.all([a, b, c].map((s) => s.alerts.resolve('once', 2000)));
      expect(resolved.filter(Boolean)).toHaveLength(1);
      expect(await a.alerts.list({ limit: 10 })).toHaveLength(1);
    });
  });
}
