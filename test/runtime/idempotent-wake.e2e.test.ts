import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { hookHeaders, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const record = (key: string, now: number) => ({
  scope: 'wake', key, requestHash: 'h', status: 'in_progress' as const, runId: 'r', responseStatus: null, responseBody: null,
  createdAt: now, lockedUntil: now + 60_000, expiresAt: now + 3_600_000,
});

describe('an idempotent wake is exactly once', () => {
  it('stores its event and completes its key in one commit (SQLite): neither without the other', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'herald.db'));
    try {
      const now = Date.now();
      expect((await store.idempotency.claim(record('k1', now), now)).type).toBe('claimed');
      store.db.exec(`CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
      await expect(store.idempotency.completeWithEvent('wake', 'k1', () => ({ status: 200, body: '{"ok":true}' }), { session: 'main', text: 'deploy done', maxPending: 20 })).rejects.toThrow();
      // the completion was rolled back with the event: the key is still in progress, nothing replays
      const again = await store.idempotency.claim(record('k1', now), now);
      expect(again).toMatchObject({ type: 'existing', record: { status: 'in_progress' } });
      store.db.exec('DROP TRIGGER refuse_events');
      await store.idempotency.completeWithEvent('wake', 'k1', () => ({ status: 200, body: '{"ok":true}' }), { session: 'main', text: 'deploy done', maxPending: 20 });
      expect(await store.events.list('main', 10)).toHaveLength(1);
      expect(await store.idempotency.claim(record('k1', now), now)).toMatchObject({ type: 'existing', record: { status: 'done', responseStatus: 200 } });
    } finally {
      await store.close();
    }
  });

  it('needs no second write after its event: a retry replays the first answer and the event is stored once', async () => {
    herald = await testApp();
    // a second write after the event is where a crash used to leave the event stored and the key open
    herald.gateway.store.idempotency.complete = async () => {
      throw new Error('crash before the completion');
    };
    const wake = () => herald!.request(`/hooks/wake`, { method: 'POST', headers: { ...hookHeaders(), 'idempotency-key': 'deploy-42' }, body: '{"text":"deploy 42 done","mode":"next-heartbeat"}' });
    const first = await wake();
    expect(first.status).toBe(200);
    const retry = await wake();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ ok: true, mode: 'next-heartbeat', eventOutcome: 'queued' });
    expect((await herald.gateway.store.events.list('main', 10)).filter((e) => e.text === 'deploy 42 done')).toHaveLength(1);
  });

  it('is stored with its key in one commit, no claim first; a retry replays it through the claim', async () => {
    herald = await testApp();
    const idempotency = herald.gateway.store.idempotency;
    const claim = idempotency.claim.bind(idempotency);
    let claims = 0;
    idempotency.claim = (...args) => {
      claims++;
      return claim(...args);
    };
    const wake = () => herald!.request(`/hooks/wake`, { method: 'POST', headers: { ...hookHeaders(), 'idempotency-key': 'deploy-43' }, body: '{"text":"deploy 43 done","mode":"next-heartbeat"}' });
    const first = await wake();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, mode: 'next-heartbeat', eventOutcome: 'queued' });
    expect(claims).toBe(0);
    const retry = await wake();
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ ok: true, mode: 'next-heartbeat', eventOutcome: 'queued' });
    expect(claims).toBe(1);
    expect((await herald.gateway.store.events.list('main', 10)).filter((e) => e.text === 'deploy 43 done')).toHaveLength(1);
  });
});
