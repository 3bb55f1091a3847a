import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DROP_MS, SharedHealth, STALE_MS, type TroubledPart } from '../../../src/runtime/operator/shared-health.js';
import type { StateRepo, Store } from '../../../src/store/port.js';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { eventually, tempDir } from '../../helpers/start-herald.js';

/**
 * Replicas' unhealthy parts through the store's state: written when a part changes (turns
 * unhealthy, changes cause, recovers), not per failure; read by the others, stale when their
 * replica stopped writing, dropped later. Two replicas here are two SharedHealth on one store.
 */
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const logger = pino({ level: 'silent' });

/** the store's state, counting the writes that reach it */
function counted(state: StateRepo) {
  const writes: string[] = [];
  const repo: StateRepo = {
    ...state,
    set: (key, value) => (writes.push(`set ${key}`), state.set(key, value)),
    delete: (key) => (writes.push(`delete ${key}`), state.delete(key)),
  };
  return { repo, writes };
}

function replica(state: StateRepo, id: string) {
  const parts: TroubledPart[] = [];
  const health = new SharedHealth({ state, replica: id, troubled: () => parts.map((p) => ({ ...p })), logger });
  return { health, parts };
}

const refused = (n: number, cause = '401 Incorrect API key provided'): TroubledPart => ({ kind: 'provider', name: 'up', cause, since: 1_000, lastFailureAt: 1_000 + n, consecutiveFailures: n });

describe('SharedHealth', () => {
  it('writes a part when it turns unhealthy, changes cause or recovers; not at each failure', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'herald.db'));
    opened.push(store);
    const { repo, writes } = counted(store.state);
    const a = replica(repo, 'host:1:aaaa');
    const b = replica(store.state, 'host:2:bbbb');
    await a.health.start();
    await b.health.start();

    a.parts.push(refused(1));
    a.health.changed();
    await eventually(async () => (await b.health.others()).length === 1);
    for (let n = 2; n <= 20; n++) {
      a.parts[0] = refused(n);
      a.health.changed();
    }
    a.parts[0] = refused(21, 'Connection error. (ECONNREFUSED 127.0.0.1:8797)');
    a.health.changed();
    await eventually(async () => (await b.health.others())[0]?.cause?.startsWith('Connection error.'));
    const seen = await b.health.others();
    expect(seen).toEqual([expect.objectContaining({ replica: 'host:1:aaaa', kind: 'provider', name: 'up', stale: false, since: 1_000 })]);

    a.parts.length = 0;
    a.health.changed();
    await eventually(async () => (await b.health.others()).length === 0);
    // one write for turning unhealthy, one for the new cause, one delete for the recovery: 21 failures
    expect(writes).toEqual(['set health:host:1:aaaa/provider/up', 'set health:host:1:aaaa/provider/up', 'delete health:host:1:aaaa/provider/up']);
    // a replica does not list its own parts among the others' (its memory is fresher)
    a.parts.push(refused(1));
    a.health.changed();
    await eventually(async () => (await b.health.others()).length === 1);
    expect(await a.health.others()).toEqual([]);
    await a.health.stop();
    await b.health.stop();
  });

  it("marks a replica's parts stale when it stopped writing, drops them later, and deletes its own when it stops", async () => {
    const store = openSqliteStore(path.join(tempDir(), 'herald.db'));
    opened.push(store);
    const a = replica(store.state, 'host:1:aaaa');
    const b = replica(store.state, 'host:2:bbbb');
    await a.health.start();
    a.parts.push(refused(1));
    a.health.changed();
    const now = Date.now();
    await eventually(async () => (await b.health.others(now)).length === 1);
    expect((await b.health.others(now + STALE_MS + 1_000))[0]).toMatchObject({ replica: 'host:1:aaaa', stale: true });
    expect(await b.health.others(now + DROP_MS + 1_000)).toEqual([]);

    await a.health.stop();
    expect(await b.health.others()).toEqual([]);
  });

  it('forgets at start what an earlier process of the same id left', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'herald.db'));
    opened.push(store);
    await store.state.set('health:host:1:aaaa/channel/slack', { ...refused(3), kind: 'channel', name: 'slack', replica: 'host:1:aaaa', seenAt: Date.now() });
    const b = replica(store.state, 'host:2:bbbb');
    expect(await b.health.others()).toHaveLength(1);
    await replica(store.state, 'host:1:aaaa').health.start();
    expect(await b.health.others()).toEqual([]);
  });
});
