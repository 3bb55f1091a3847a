import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';

const T = 1_000_000;
const record = (over: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  scope: 'agent',
  key: 'k',
  requestHash: 'h1',
  status: 'in_progress',
  runId: 'run-1',
  responseStatus: null,
  responseBody: null,
  createdAt: T,
  lockedUntil: T + 60_000,
  expiresAt: T + 3_600_000,
  ...over,
});

const open = () => openSqliteStore(path.join(tempDir(), 'herald.db'));

describe('idempotency keys in the sqlite store', () => {
  it('lets one claim win; the others see it in progress, then done', async () => {
    const store = open();
    expect(await store.idempotency.claim(record(), T)).toMatchObject({ type: 'claimed', record: { runId: 'run-1' } });
    expect(await store.idempotency.claim(record({ runId: 'run-2' }), T + 1)).toMatchObject({ type: 'existing', record: { status: 'in_progress', runId: 'run-1' } });
    await store.idempotency.complete('agent', 'k', { status: 202, body: '{"ok":true,"runId":"run-1"}' });
    expect(await store.idempotency.claim(record({ runId: 'run-3' }), T + 2)).toMatchObject({ type: 'existing', record: { status: 'done', responseStatus: 202 } });
    // scoped per path
    expect(await store.idempotency.claim(record({ scope: 'wake' }), T + 2)).toMatchObject({ type: 'claimed' });
    await store.close();
  });

  it('recovers a key left in progress by a process that died', async () => {
    const store = open();
    // died after storing the run: the run is the commit point, so the key becomes that run's 202
    await store.idempotency.claim(record({ key: 'after-run', runId: 'run-a' }), T);
    await store.runs.insert({
      id: 'run-a', status: 'queued', agentId: 'main', name: 'Hook', sessionKey: 'hook:a', message: 'm', action: { kind: 'agent', message: 'm' },
      reply: null, error: null, createdAt: T, startedAt: null, finishedAt: null,
    });
    const later = T + 120_000; // past lockedUntil
    expect(await store.idempotency.claim(record({ key: 'after-run', runId: 'run-b' }), later)).toMatchObject({
      type: 'existing',
      record: { status: 'done', responseStatus: 202, responseBody: '{"ok":true,"runId":"run-a"}' },
    });

    // died before storing anything: the key is free again (it keeps the run id it was given)
    await store.idempotency.claim(record({ key: 'before-run', runId: 'run-c' }), T);
    expect(await store.idempotency.claim(record({ key: 'before-run', runId: 'run-d', lockedUntil: later + 60_000 }), later)).toMatchObject({
      type: 'claimed',
      record: { runId: 'run-c', lockedUntil: later + 60_000 },
    });
    // ...for another body too: nothing was done under the key
    await store.idempotency.claim(record({ key: 'other', requestHash: 'h1' }), T);
    expect(await store.idempotency.claim(record({ key: 'other', requestHash: 'h2', lockedUntil: later + 60_000 }), later)).toMatchObject({ type: 'claimed', record: { requestHash: 'h2' } });
    expect(await store.idempotency.claim(record({ key: 'other', requestHash: 'h1' }), later + 1)).toMatchObject({ type: 'existing', record: { requestHash: 'h2', status: 'in_progress' } });
    await store.close();
  });

  it('forgets expired keys, never one still locked; release drops only an unfinished key', async () => {
    const store = open();
    await store.idempotency.claim(record({ key: 'done', expiresAt: T + 10 }), T);
    await store.idempotency.complete('agent', 'done', { status: 200, body: '{}' });
    await store.idempotency.claim(record({ key: 'busy', expiresAt: T + 10, lockedUntil: T + 100 }), T);
    expect(await store.idempotency.prune(T + 50)).toBe(1);
    expect(await store.idempotency.claim(record({ key: 'busy' }), T + 50)).toMatchObject({ type: 'existing', record: { status: 'in_progress' } });
    // an expired done key is claimed afresh without waiting for a prune
    await store.idempotency.claim(record({ key: 'again', expiresAt: T + 10 }), T);
    await store.idempotency.complete('agent', 'again', { status: 200, body: '{}' });
    expect(await store.idempotency.claim(record({ key: 'again', requestHash: 'new' }), T + 20)).toMatchObject({ type: 'claimed' });

    await store.idempotency.complete('agent', 'again', { status: 200, body: '{}' });
    await store.idempotency.release('agent', 'again');
    expect(await store.idempotency.claim(record({ key: 'again', requestHash: 'new' }), T + 30)).toMatchObject({ type: 'existing', record: { status: 'done' } });
    await store.close();
  });
});
