import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryRecord } from '../../src/store/port.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const stores: SqliteStore[] = [];
afterEach(async () => Promise.all(stores.splice(0).map((s) => s.close())));

/** two handles on one database file: two herald processes sharing a store */
function twoWorkers() {
  const file = path.join(tempDir(), 'herald.db');
  const a = openSqliteStore(file);
  const b = openSqliteStore(file);
  stores.push(a, b);
  return [a, b] as const;
}

function pending(id: string, now: number): DeliveryRecord {
  return {
    id, runId: 'run-1', kind: 'run', channel: 'telegram', to: '555', text: 'hi', sessionKey: 'hook:x', agentId: 'main',
    status: 'pending', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now, leaseOwner: null, leaseUntil: null,
    createdAt: now, updatedAt: now, deliveredAt: null,
  };
}

describe('deliveries claim', () => {
  it('gives a due delivery to exactly one of two workers', async () => {
    const [a, b] = twoWorkers();
    const now = Date.now();
    await a.deliveries.insert(pending('d1', now));
    const [first, second] = await Promise.all([a.deliveries.claim('d1', 'worker-a', now, now + 60_000), b.deliveries.claim('d1', 'worker-b', now, now + 60_000)]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(first).toMatchObject({ status: 'sending', leaseOwner: 'worker-a', attempts: 1 });
    expect(await b.deliveries.due(now + 1, 10)).toEqual([]);
  });

  it('retakes a crashed worker\'s claim once its lease expired; the old worker can no longer finish it', async () => {
    const [a, b] = twoWorkers();
    const now = Date.now();
    await a.deliveries.insert(pending('d1', now));
    await a.deliveries.claim('d1', 'worker-a', now, now + 1000);
    expect(await b.deliveries.claim('d1', 'worker-b', now + 500, now + 2000)).toBeUndefined();
    expect(await b.deliveries.due(now + 1001, 10)).toEqual(['d1']);
    const retaken = await b.deliveries.claim('d1', 'worker-b', now + 1001, now + 5000);
    expect(retaken).toMatchObject({ leaseOwner: 'worker-b', attempts: 2 });
    expect(await a.deliveries.delivered('d1', 'worker-a', now + 1002)).toBe(false);
    expect(await b.deliveries.delivered('d1', 'worker-b', now + 1003)).toBe(true);
    expect(await a.deliveries.get('d1')).toMatchObject({ status: 'delivered', deliveredAt: now + 1003, leaseOwner: null });
  });

  it('does not claim a pending delivery before its next attempt is due', async () => {
    const [a] = twoWorkers();
    const now = Date.now();
    await a.deliveries.insert({ ...pending('d1', now), nextAttemptAt: now + 1000 });
    expect(await a.deliveries.claim('d1', 'w', now, now + 60_000)).toBeUndefined();
    expect(await a.deliveries.nextDueAt()).toBe(now + 1000);
  });
});

describe('deliveries partSent', () => {
  it('renews the claim with each accepted part, so a long reply in many parts keeps its worker', async () => {
    const [a, b] = twoWorkers();
    const now = Date.now();
    await a.deliveries.insert(pending('d1', now));
    await a.deliveries.claim('d1', 'worker-a', now, now + 1000);
    expect(await a.deliveries.partSent('d1', 'worker-a', 1, now + 60_000)).toBe(true);
    // past the first lease, the claim still holds: nobody else may take it
    expect(await b.deliveries.due(now + 5000, 10)).toEqual([]);
    expect(await b.deliveries.claim('d1', 'worker-b', now + 5000, now + 65_000)).toBeUndefined();
    // a renewal never shortens a claim
    await a.deliveries.partSent('d1', 'worker-a', 2, now + 10);
    expect((await a.deliveries.get('d1'))!.leaseUntil).toBe(now + 60_000);
  });
});

describe('deliveries insert', () => {
  it('adds one delivery per run, even when two workers race on it; heartbeat replies always', async () => {
    const [a, b] = twoWorkers();
    const now = Date.now();
    const results = await Promise.all([a.deliveries.insert(pending('d1', now)), b.deliveries.insert(pending('d2', now))]);
    expect(results.sort()).toEqual([false, true]);
    expect(await a.deliveries.forRun('run-1')).toHaveLength(1);
    const heartbeat = (id: string) => ({ ...pending(id, now), runId: null, kind: 'heartbeat' as const });
    expect(await a.deliveries.insert(heartbeat('h1'))).toBe(true);
    expect(await a.deliveries.insert(heartbeat('h2'))).toBe(true);
  });
});
