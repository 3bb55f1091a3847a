import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceiptRecord, Store } from '../../src/store/port.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { tempDir } from '../helpers/start-herald.js';
import { queuedRun } from './run-record.js';
import { uuidV7 } from '../../src/time/uuid-v7.js';

const schemas: string[] = [];
const adapters: [string, () => Promise<Store>][] = [
  ['sqlite', async () => openSqliteStore(path.join(tempDir(), 'herald.db'))],
  [
    'postgres',
    async () => {
      const schema = uniqueSchema();
      schemas.push(schema);
      return openPostgresStore({ url: PG_URL, schema, poolSize: 4 });
    },
  ],
];

beforeAll(requirePostgres);
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

const receipt = (id: string, receivedAt: number, over: Partial<ReceiptRecord> = {}): ReceiptRecord => ({
  id,
  requestId: `req-${id}`,
  receivedAt,
  method: 'POST',
  path: 'github',
  mappingId: 'github',
  status: 202,
  outcome: 'agent',
  errorCode: null,
  runId: null,
  eventId: null,
  idempotencyKey: null,
  authMethod: 'bearer',
  signature: null,
  clientAddress: '127.0.0.1',
  bodyBytes: 10,
  latencyMs: 1.5,
  replayOf: null,
  retainedUntil: null,
  ...over,
});
const payload = (id: string, body: string, expiresAt: number) => ({ receiptId: id, path: 'github', body: new TextEncoder().encode(body), headers: { 'x-event': 'push' }, query: { a: '1' }, expiresAt });

/** one contract, both adapters: what the admin API and the console rely on */
describe.each(adapters)('operator repos on %s', (_name, open) => {
  it('receipts: filters, newest-first keyset pages, retained payloads, pruning by TTL and size, per-minute counts', async () => {
    const store = await open();
    const t = 1_700_000_000_000;
    await store.receipts.record(receipt('a', t, { retainedUntil: t + 1000 }), payload('a', '{"n":1}', t + 1000));
    await store.receipts.record(receipt('b', t + 10, { retainedUntil: t + 5000 }), payload('b', '{"n":22}', t + 5000));
    await store.receipts.record(receipt('c', t + 10, { status: 404, outcome: 'error', errorCode: 'HERALD_MAPPING_NOT_FOUND', mappingId: null, path: 'nope' }));
    await store.receipts.record(receipt('d', t + 60_000, { replayOf: 'a', runId: 'run-1', idempotencyKey: 'Key_%1' }));

    const ids = async (q: Partial<Parameters<Store['receipts']['list']>[0]>) => (await store.receipts.list({ limit: 10, ...q })).map((r) => r.id);
    expect(await ids({})).toEqual(['d', 'c', 'b', 'a']);
    expect(await ids({ limit: 2 })).toEqual(['d', 'c']);
    expect(await ids({ after: { at: t + 10, id: 'c' } })).toEqual(['b', 'a']);
    expect(await ids({ result: 'error' })).toEqual(['c']);
    expect(await ids({ result: 'ok', path: 'github' })).toEqual(['d', 'b', 'a']);
    expect(await ids({ replayOf: 'a' })).toEqual(['d']);
    expect(await ids({ q: 'key_%' })).toEqual(['d']);
    expect(await ids({ since: t + 10, until: t + 10 })).toEqual(['c', 'b']);
    expect(await store.receipts.get('d')).toMatchObject({ runId: 'run-1', latencyMs: 1.5, replayOf: 'a' });

    const kept = await store.receipts.payload('a', t);
    expect(new TextDecoder().decode(kept!.body)).toBe('{"n":1}');
    expect(kept).toMatchObject({ headers: { 'x-event': 'push' }, query: { a: '1' } });
    expect((await store.receipts.retainedForPath('github', 10, t)).map((r) => r.receipt.id)).toEqual(['b', 'a']);
    expect(await store.receipts.retainedBytes()).toBe(15);
    expect(await store.receipts.perMinute(t)).toEqual([
      { minute: Math.floor(t / 60000) * 60000, total: 3, failed: 1 },
      { minute: Math.floor((t + 60_000) / 60000) * 60000, total: 1, failed: 0 },
    ]);

    // past a's TTL: a goes; a cap of 7 bytes keeps b (8 bytes) out too
    expect(await store.receipts.prune({ now: t + 1000, maxTotalBytes: 8, receiptsBefore: 0 })).toEqual({ payloads: 1, receipts: 0 });
    expect(await store.receipts.payload('a', t)).toBeUndefined();
    expect((await store.receipts.get('a'))!.retainedUntil).toBeNull();
    expect(await store.receipts.prune({ now: t + 1000, maxTotalBytes: 7, receiptsBefore: t + 10 })).toEqual({ payloads: 1, receipts: 1 });
    expect(await store.receipts.retainedBytes()).toBe(0);
    expect(await ids({ retained: true })).toEqual([]);
    expect(await ids({})).toEqual(['d', 'c', 'b']);
    await store.close();
  });

  it("runs and receipts whose id is their time's UUID v7 and others listed together, by time: pages, ranges, per-minute counts, pruning, scrubbing", async () => {
    const store = await open();
    const t = 1_700_000_040_000;
    // ids as herald makes them (uuidV7 of the creation time, two in one millisecond), and others: an id chosen
    // earlier than the row was made, an imported one; their times interleaved, one tie with a keyed row
    const rows: [string, number][] = [
      [uuidV7(t), t], ['legacy-1', t + 5], [uuidV7(t + 10), t + 10], [uuidV7(t + 10), t + 10], ['legacy-2', t + 10],
      [uuidV7(t - 7), t + 20], [uuidV7(t + 60_000), t + 60_000], ['legacy-3', t + 120_000],
    ];
    const to = (id: string) => `interaction:1012345678901234567:${id}#token=aW50ZXJhY3Rpb246`;
    for (const [id, at] of rows) {
      await store.runs.insert(queuedRun(id, at, { deliver: true, channel: 'discord', to: to(id) }));
      await store.receipts.record(receipt(id, at, { path: 'agent', mappingId: 'agent' }));
    }
    const newestFirst = [...rows].sort((a, b) => b[1] - a[1] || (b[0] < a[0] ? -1 : b[0] > a[0] ? 1 : 0)).map(([id]) => id);
    const inPages = async (list: (after?: { at: number; id: string }) => Promise<{ id: string; at: number }[]>) => {
      const seen: string[] = [];
      let after: { at: number; id: string } | undefined;
      for (let page = await list(); page.length; page = await list(after)) {
        seen.push(...page.map((r) => r.id));
        after = { at: page.at(-1)!.at, id: page.at(-1)!.id };
      }
      return seen;
    };
    const runs = (q: Partial<Parameters<Store['browse']['runs']>[0]>) => store.browse.runs({ limit: 3, ...q }).then((page) => page.map((r) => ({ id: r.id, at: r.createdAt })));
    const receipts = (q: Partial<Parameters<Store['receipts']['list']>[0]>) => store.receipts.list({ limit: 3, ...q }).then((page) => page.map((r) => ({ id: r.id, at: r.receivedAt })));
    // pages of 2 and 3: their ends fall between rows of one millisecond, keyed and not
    for (const limit of [2, 3]) {
      expect(await inPages((after) => runs({ after, limit }))).toEqual(newestFirst);
      expect(await inPages((after) => receipts({ after, limit }))).toEqual(newestFirst);
      expect(await inPages((after) => runs({ after, limit, mappingId: 'agent' }))).toEqual(newestFirst);
    }
    // both ends inclusive, keyed rows at each
    const inRange = newestFirst.filter((id) => rows.find((r) => r[0] === id)![1] >= t && rows.find((r) => r[0] === id)![1] <= t + 10);
    expect((await runs({ since: t, until: t + 10, limit: 10 })).map((r) => r.id)).toEqual(inRange);
    expect((await receipts({ since: t, until: t + 10, limit: 10 })).map((r) => r.id)).toEqual(inRange);
    // a range holding keyed rows alone
    expect((await runs({ since: t + 60_000, until: t + 60_000 })).map((r) => r.id)).toEqual([rows[6]![0]]);
    expect((await receipts({ since: t + 30, until: t + 60_000 })).map((r) => r.id)).toEqual([rows[6]![0]]);
    expect(await store.browse.runsPerMinute(t + 10)).toEqual([
      { minute: Math.floor((t + 10) / 60_000) * 60_000, total: 4, failed: 0 },
      { minute: t + 60_000, total: 1, failed: 0 },
      { minute: t + 120_000, total: 1, failed: 0 },
    ]);
    expect((await store.receipts.perMinute(t + 10)).map((m) => m.total)).toEqual([4, 1, 1]);
    // the credentials of the runs made before t + 10: the keyed one at t and legacy-1
    expect(await store.runs.scrubCredentials([], { from: t, before: t + 10 })).toBe(2);
    expect((await store.runs.get('legacy-1'))!.action.to).toContain('#token=…');
    expect((await store.runs.get(rows[2]![0]))!.action.to).toBe(to(rows[2]![0]));
    // the receipts received before t + 20 go; the one at t + 20 (its id of an earlier millisecond) and later stay
    expect((await store.receipts.prune({ now: t, maxTotalBytes: 1e9, receiptsBefore: t + 20 })).receipts).toBe(5);
    expect(await inPages((after) => receipts({ after }))).toEqual(newestFirst.slice(0, 3));
    await store.close();
  });

  it('runs, events, deliveries and sessions: filters and pages; cancel, re-run links, abandon', async () => {
    const store = await open();
    await store.runs.insert(queuedRun('r1', 100));
    await store.runs.insert({ ...queuedRun('r2', 200), rerunOf: 'r1', sessionKey: 'chat:x' });
    await store.runs.insert(queuedRun('r3', 300));
    await store.receipts.record(receipt('x', 100, { runId: 'r1', mappingId: 'gh' }));
    const runIds = async (q: Partial<Parameters<Store['browse']['runs']>[0]>) => (await store.browse.runs({ limit: 10, ...q })).map((r) => r.id);
    expect(await runIds({})).toEqual(['r3', 'r2', 'r1']);
    expect(await runIds({ rerunOf: 'r1' })).toEqual(['r2']);
    expect(await runIds({ mappingId: 'agent' })).toEqual(['r3', 'r2', 'r1']);
    expect(await runIds({ mappingId: 'gh' })).toEqual([]);
    expect(await runIds({ sessionKey: 'chat:x' })).toEqual(['r2']);
    expect(await runIds({ limit: 1, after: { at: 300, id: 'r3' } })).toEqual(['r2']);
    expect(await runIds({ status: 'queued', since: 150, until: 300 })).toEqual(['r3', 'r2']);
    expect(await runIds({ agentId: 'main' })).toEqual(['r3', 'r2', 'r1']);
    expect(await runIds({ agentId: 'other' })).toEqual([]);
    expect(await runIds({ q: 'CHAT:' })).toEqual(['r2']);
    expect((await store.runs.get('r2'))!.rerunOf).toBe('r1');

    expect(await store.runs.cancel('r3', 400)).toBe(true);
    expect(await store.runs.cancel('r3', 400)).toBe(false);
    // a cancelled run is never claimed; a claimed (running) one cannot be cancelled
    expect((await store.runs.claim({ owner: 'o', now: 500, until: 10_000 }, 10)).map((r) => r.id).sort()).toEqual(['r1', 'r2']);
    expect(await store.runs.cancel('r1', 600)).toBe(false);
    expect(await runIds({ status: 'cancelled' })).toEqual(['r3']);
    expect(await store.browse.runsPerMinute(0)).toEqual([{ minute: 0, total: 3, failed: 0 }]);

    for (let i = 0; i < 5; i++) await store.events.enqueue(i % 2 ? 'main' : 'other', `event ${i}`, 20);
    const first = await store.browse.events({ limit: 2, session: 'main' });
    expect(first.map((e) => e.text)).toEqual(['event 3', 'event 1']);
    expect((await store.browse.events({ limit: 10, after: { at: first[0]!.createdAt, id: String(first[0]!.id) } })).map((e) => e.text)).toEqual(['event 2', 'event 1', 'event 0']);
    expect((await store.browse.events({ limit: 10, q: 'EVENT 4' })).map((e) => e.text)).toEqual(['event 4']);
    await store.events.claimPending('main', { owner: 'o', now: 1, until: 2 }, 20);
    expect((await store.browse.events({ limit: 10, status: 'processing' })).map((e) => e.text)).toEqual(['event 3', 'event 1']);
    expect((await store.browse.events({ limit: 10, session: 'other', status: 'pending' })).map((e) => e.text)).toEqual(['event 4', 'event 2', 'event 0']);

    const now = 1000;
    const base = { runId: null, kind: 'heartbeat' as const, to: '1', text: 't', sessionKey: 'main', agentId: 'main', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now, deliveredAt: null };
    await store.deliveries.insert({ ...base, id: 'd1', channel: 'telegram', status: 'pending', createdAt: now });
    await store.deliveries.insert({ ...base, id: 'd2', channel: 'slack', status: 'delivered', createdAt: now + 1 });
    expect(await store.deliveries.abandon('d1', now + 2)).toBe(true);
    expect(await store.deliveries.abandon('d2', now + 2)).toBe(false);
    expect((await store.browse.deliveries({ limit: 10, status: 'abandoned' })).map((d) => d.id)).toEqual(['d1']);
    expect((await store.browse.deliveries({ limit: 10, channel: 'slack' })).map((d) => d.id)).toEqual(['d2']);
    await store.deliveries.insert({ ...base, id: 'd3', runId: 'r1', kind: 'run', channel: 'slack', status: 'pending', sessionKey: 'hook:r1', agentId: 'support', createdAt: now + 5 });
    const deliveryIds = async (q: Partial<Parameters<Store['browse']['deliveries']>[0]>) => (await store.browse.deliveries({ limit: 10, ...q })).map((d) => d.id);
    expect(await deliveryIds({ runId: 'r1' })).toEqual(['d3']);
    expect(await deliveryIds({ agentId: 'support' })).toEqual(['d3']);
    expect(await deliveryIds({ sessionKey: 'main' })).toEqual(['d2', 'd1']);
    expect(await deliveryIds({ since: now + 1, until: now + 1 })).toEqual(['d2']);
    expect(await deliveryIds({ q: 'R1' })).toEqual(['d3']);
    expect(await deliveryIds({ limit: 1, after: { at: now + 1, id: 'd2' } })).toEqual(['d1']);
    expect(await store.browse.deliveriesPerMinute(0)).toEqual([{ minute: 0, total: 3, failed: 1 }]);

    await store.sessions.append('hook:a', { role: 'user', content: 'hi', createdAt: 10 });
    await store.sessions.append('hook:a', { role: 'assistant', content: 'yo', createdAt: 20 });
    await store.sessions.append('chat:b', { role: 'user', content: 'hey', createdAt: 30 });
    const sessions = (q: Partial<Parameters<Store['browse']['sessions']>[0]>) => store.browse.sessions({ limit: 10, defaultAgentId: 'main', ...q });
    // the runs' sessions are listed from their run on, before any message
    expect(await sessions({})).toEqual([
      { key: 'hook:r3', agentId: 'main', messages: 0, firstAt: 300, lastAt: 300 },
      { key: 'chat:x', agentId: 'main', messages: 0, firstAt: 200, lastAt: 200 },
      { key: 'hook:r1', agentId: 'main', messages: 0, firstAt: 100, lastAt: 100 },
      { key: 'chat:b', agentId: 'main', messages: 1, firstAt: 30, lastAt: 30 },
      { key: 'hook:a', agentId: 'main', messages: 2, firstAt: 10, lastAt: 20 },
    ]);
    expect((await sessions({ prefix: 'hook:' })).map((s) => s.key)).toEqual(['hook:r3', 'hook:r1', 'hook:a']);
    expect((await sessions({ after: { at: 30, id: 'chat:b' } })).map((s) => s.key)).toEqual(['hook:a']);
    expect((await sessions({ q: 'HOOK:A' })).map((s) => s.key)).toEqual(['hook:a']);
    expect((await sessions({ since: 25, until: 150 })).map((s) => s.key)).toEqual(['hook:r1', 'chat:b']);
    await store.close();
  });

  it("lists a made-up session's first run (keyed hook:<its id>) with the runs posted into its session later, which wait behind it", async () => {
    const store = await open();
    const runIds = async (q: Partial<Parameters<Store['browse']['runs']>[0]>) => (await store.browse.runs({ limit: 10, ...q })).map((r) => r.id);
    const claimIds = async (now: number) => (await store.runs.claim({ owner: 'o', now, until: Date.now() + 60_000 }, 10)).map((r) => r.id);
    const done = (id: string, at: number) => ({ status: 'succeeded' as const, reply: 'ok', at, transcript: [], summary: { session: 'main', text: `Hook ${id}: ok`, maxPending: 20 } });
    // m1 made its session up (hook:m1, as run-queue.ts names it); m2 and m3 were posted into it
    await store.runs.insert(queuedRun('m1', 100));
    await store.runs.insert({ ...queuedRun('m2', 200), sessionKey: 'hook:m1' });
    await store.runs.insert(queuedRun('solo', 250));
    await store.runs.insert({ ...queuedRun('m3', 300), sessionKey: 'hook:m1' });
    expect(await runIds({ sessionKey: 'hook:m1' })).toEqual(['m3', 'm2', 'm1']);
    expect(await runIds({ sessionKey: 'hook:m1', status: 'queued' })).toEqual(['m3', 'm2', 'm1']);
    expect(await runIds({ sessionKey: 'hook:m1', limit: 1, after: { at: 200, id: 'm2' } })).toEqual(['m1']);
    expect(await runIds({ sessionKey: 'hook:m1', q: 'M2' })).toEqual(['m2']);
    expect(await runIds({ status: 'queued' })).toEqual(['m3', 'solo', 'm2', 'm1']);
    expect(await runIds({ status: 'queued', limit: 2 })).toEqual(['m3', 'solo']);
    // the runs posted later wait behind the first
    expect(await claimIds(1)).toEqual(['m1', 'solo']);
    expect(await runIds({ status: 'running' })).toEqual(['solo', 'm1']);
    expect(await runIds({ sessionKey: 'hook:m1', status: 'running' })).toEqual(['m1']);
    expect(await store.runs.complete('m1', done('m1', 2))).toBe(true);
    expect(await claimIds(3)).toEqual(['m2']);
    expect(await runIds({ sessionKey: 'hook:m1', status: 'succeeded' })).toEqual(['m1']);
    expect(await runIds({ sessionKey: 'hook:m1' })).toEqual(['m3', 'm2', 'm1']);
    // a run made into a session someone named after its id before it was made waits behind that session's runs
    await store.runs.insert({ ...queuedRun('early', 400), sessionKey: 'hook:late' });
    await store.runs.insert(queuedRun('late', 500));
    expect(await claimIds(4)).toEqual(['early']);
    expect(await runIds({ sessionKey: 'hook:late' })).toEqual(['late', 'early']);
    expect(await runIds({ status: 'queued' })).toEqual(['late', 'm3']);
    expect(await store.runs.complete('early', done('early', 5))).toBe(true);
    expect(await claimIds(6)).toEqual(['late']);
    expect(await runIds({ sessionKey: 'hook:late', status: 'running' })).toEqual(['late']);
    await store.close();
  });

  it('the filters of every list: runs by channel and mapping, events and deliveries by mapping, sessions by agent', async () => {
    const store = await open();
    const now = 1000;
    // r1 asked for `last` and was delivered on telegram; r2 asked for slack, not delivered yet; r3 asked for `last`
    await store.runs.insert(queuedRun('r1', 100, { channel: 'last', source: { mappingId: 'github', path: 'github' } }));
    await store.runs.insert(queuedRun('r2', 200, { channel: 'slack', source: { mappingId: 'github', path: 'github' } }));
    await store.runs.insert({ ...queuedRun('r3', 300, { channel: 'last' }), agentId: 'support' });
    const base = { kind: 'run' as const, to: '1', text: 't', agentId: 'main', attempts: 0, partsSent: 0, lastError: null, nextAttemptAt: now, leaseOwner: null, leaseUntil: null, updatedAt: now, deliveredAt: null };
    await store.deliveries.insert({ ...base, id: 'd1', runId: 'r1', sessionKey: 'hook:r1', channel: 'telegram', status: 'pending', createdAt: now });
    await store.deliveries.insert({ ...base, id: 'd3', runId: 'r3', sessionKey: 'hook:r3', channel: 'discord', status: 'pending', createdAt: now + 1 });
    const runIds = async (q: Partial<Parameters<Store['browse']['runs']>[0]>) => (await store.browse.runs({ limit: 10, ...q })).map((r) => r.id);
    expect(await runIds({ channel: 'telegram' })).toEqual(['r1']);
    expect(await runIds({ channel: 'slack' })).toEqual(['r2']);
    expect(await runIds({ channel: 'last' })).toEqual([]);
    expect(await runIds({ mappingId: 'github' })).toEqual(['r2', 'r1']);
    expect(await runIds({ mappingId: 'github', limit: 1, after: { at: 200, id: 'r2' } })).toEqual(['r1']);
    expect(await runIds({ mappingId: 'github', channel: 'slack' })).toEqual(['r2']);
    expect(await runIds({ mappingId: 'github', since: 150 })).toEqual(['r2']);

    const deliveryIds = async (q: Partial<Parameters<Store['browse']['deliveries']>[0]>) => (await store.browse.deliveries({ limit: 10, ...q })).map((d) => d.id);
    expect(await deliveryIds({ mappingId: 'github' })).toEqual(['d1']);
    expect(await deliveryIds({ mappingId: 'agent' })).toEqual(['d3']);
    expect(await deliveryIds({ mappingId: 'agent', until: now })).toEqual([]);

    const e1 = await store.events.enqueue('main', 'deploy finished', 20);
    await store.events.enqueue('main', 'heartbeat note', 20);
    const events = await store.browse.events({ limit: 10 });
    const deploy = events.find((e) => e.text === 'deploy finished')!;
    await store.receipts.record(receipt('w1', 50, { mappingId: 'deploys', outcome: 'wake', eventId: deploy.id }));
    expect(e1).toBeDefined();
    expect((await store.browse.events({ limit: 10, mappingId: 'deploys' })).map((e) => e.text)).toEqual(['deploy finished']);
    expect(await store.browse.events({ limit: 10, mappingId: 'other' })).toEqual([]);
    // the built-in endpoints' requests, which receipts_mapping leaves out, are listed by their mapping all the same
    const heartbeatNote = events.find((e) => e.text === 'heartbeat note')!;
    await store.receipts.record(receipt('w2', 60, { mappingId: 'wake', path: 'wake', outcome: 'wake', eventId: heartbeatNote.id }));
    await store.receipts.record(receipt('a1', 70, { mappingId: 'agent', path: 'agent', outcome: 'agent', runId: 'r3' }));
    expect((await store.browse.events({ limit: 10, mappingId: 'wake' })).map((e) => e.text)).toEqual(['heartbeat note']);
    expect((await store.receipts.list({ limit: 10, mappingId: 'wake' })).map((r) => r.id)).toEqual(['w2']);
    expect((await store.receipts.list({ limit: 10, mappingId: 'agent' })).map((r) => r.id)).toEqual(['a1']);
    expect((await store.receipts.list({ limit: 10, mappingId: 'deploys' })).map((r) => r.id)).toEqual(['w1']);

    // a session's agent: its first message's (a chat names it, a hook run's is its run's); main is the default agent's
    await store.sessions.append('hook:r3', { role: 'user', content: 'hi', createdAt: 10, runId: 'r3' });
    await store.sessions.append('hook:r3', { role: 'assistant', content: 'yo', createdAt: 11, runId: 'r3', meta: { agentId: 'nobody' } });
    await store.sessions.append('chat:conv_1', { role: 'user', content: 'hey', createdAt: 20, meta: { agentId: 'sales' } });
    await store.sessions.append('main', { role: 'user', content: 'beat', createdAt: 30, meta: { agentId: 'sales' } });
    await store.sessions.append('hook:r1', { role: 'user', content: 'ho', createdAt: 40, runId: 'r1' });
    const sessions = (q: Partial<Parameters<Store['browse']['sessions']>[0]>) => store.browse.sessions({ limit: 10, defaultAgentId: 'boss', ...q });
    expect((await sessions({})).map((s) => [s.key, s.agentId])).toEqual([
      ['hook:r3', 'support'],
      ['hook:r2', 'main'],
      ['hook:r1', 'main'],
      ['main', 'boss'],
      ['chat:conv_1', 'sales'],
    ]);
    expect((await sessions({ agentId: 'sales' })).map((s) => s.key)).toEqual(['chat:conv_1']);
    expect((await sessions({ agentId: 'boss' })).map((s) => s.key)).toEqual(['main']);
    expect((await sessions({ agentId: 'support', q: 'r3' })).map((s) => s.key)).toEqual(['hook:r3']);
    expect((await sessions({ agentId: 'main', limit: 1, after: { at: 40, id: 'hook:r1' } })).map((s) => s.key)).toEqual([]);
    expect((await sessions({ since: 15, until: 30 })).map((s) => s.key)).toEqual(['main', 'chat:conv_1']);
    await store.close();
  });
});
