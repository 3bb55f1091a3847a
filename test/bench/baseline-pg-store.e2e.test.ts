import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgBaselineStore } from '../../bench/baseline-pg-store.js';
import { pgTurnBatch } from '../../bench/baseline-pg-turn-batch.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';

const schema = uniqueSchema('baseline_test');
beforeAll(requirePostgres);
afterAll(() => dropSchema(schema));

const receipt = (n: number) => ({
  requestId: `req-${n}`, receivedAt: Date.now(), method: 'POST', path: 'wake', mappingId: null, status: 200, outcome: 'queued',
  errorCode: null, runId: null, eventId: n, clientAddress: '127.0.0.1', bodyBytes: 10, latencyMs: 0.5,
});

describe('bench baseline on PostgreSQL: wakes, receipts and runs batched as herald batches them', () => {
  it('sends the items of one turn together, and those asked while a statement is on its way together in the next', async () => {
    const sent: number[][] = [];
    let finish!: () => void;
    const batch = pgTurnBatch(async (items: number[]) => {
      sent.push(items);
      if (sent.length === 1) await new Promise<void>((resolve) => (finish = resolve));
      return items.map((i) => i * 10);
    });
    const first = [batch(1), batch(2)];
    await new Promise((resolve) => setImmediate(resolve));
    // two later turns while the first statement is in flight
    const later = [batch(3)];
    await new Promise((resolve) => setImmediate(resolve));
    later.push(batch(4));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([[1, 2]]);
    finish();
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40]);
    expect(sent).toEqual([[1, 2], [3, 4]]);
  });

  it('without a limit in flight, sends each turn\'s statement at once', async () => {
    const sent: number[][] = [];
    const finishes: (() => void)[] = [];
    const batch = pgTurnBatch(async (items: number[]) => {
      sent.push(items);
      await new Promise<void>((resolve) => finishes.push(resolve));
      return items.map((i) => i * 10);
    }, Number.POSITIVE_INFINITY);
    const all = [batch(1), batch(2)];
    await new Promise((resolve) => setImmediate(resolve));
    all.push(batch(3));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([[1, 2], [3]]);
    finishes.forEach((finish) => finish());
    expect(await Promise.all(all)).toEqual([10, 20, 30]);
  });

  it('inserts a turn\'s runs by one statement, in order, each new session summarised; and executes them', async () => {
    const runsSchema = `${schema}_runs`;
    const store = await pgBaselineStore(PG_URL, runsSchema, 'own');
    const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${runsSchema}`, max: 1 });
    try {
      const sessions = ['hook:a', 'hook:b', 'hook:a'];
      await Promise.all(sessions.map((key, i) => store.insertRun(`run-${i}`, 'bench', key, `message ${i}`, '{"kind":"agent"}', 'm', true)));
      const runs = await pool.query('SELECT id, status, session_key FROM runs ORDER BY seq');
      expect(runs.rows).toEqual(sessions.map((key, i) => ({ id: `run-${i}`, status: 'queued', session_key: key })));
      const summaries = await pool.query('SELECT key, agent_id, messages FROM session_summaries ORDER BY key');
      expect(summaries.rows).toEqual([{ key: 'hook:a', agent_id: 'main', messages: 0 }, { key: 'hook:b', agent_id: 'main', messages: 0 }]);

      store.executeRuns();
      for (let i = 0; i < 200; i++) {
        const { rows } = await pool.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM runs WHERE status = 'succeeded'");
        if (rows[0]!.n === 3) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const after = await pool.query('SELECT key, messages FROM session_summaries ORDER BY key');
      expect(after.rows).toEqual([{ key: 'hook:a', messages: 4 }, { key: 'hook:b', messages: 2 }]);
    } finally {
      await pool.end();
      await store.close();
      await dropSchema(runsSchema);
    }
  });

  it('executes more runs than it holds: the completions claim the next ones, each run once', async () => {
    const runsSchema = `${schema}_many`;
    const store = await pgBaselineStore(PG_URL, runsSchema, 'own');
    const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${runsSchema}`, max: 1 });
    try {
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.insertRun(`run-${i}`, 'bench', `hook:${i}`, `message ${i}`, '{"kind":"agent"}', 'm', true)));
      store.executeRuns();
      const succeeded = async () => (await pool.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM runs WHERE status = 'succeeded'")).rows[0]!.n;
      for (let i = 0; i < 200 && (await succeeded()) < 40; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await succeeded()).toBe(40);
      const turns = await pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM session_messages GROUP BY run_id');
      expect(turns.rows.map((r) => r.n)).toEqual(Array(40).fill(2));
    } finally {
      await pool.end();
      await store.close();
      await dropSchema(runsSchema);
    }
  });

  it('enqueues a turn\'s wakes by one call: ids in order, a repeat skipped, 20 pending kept; and writes its receipts', async () => {
    const store = await pgBaselineStore(PG_URL, schema, 'own');
    const pool = new pg.Pool({ connectionString: PG_URL, options: `-c search_path=${schema}`, max: 1 });
    try {
      const texts = Array.from({ length: 24 }, (_, i) => `wake ${i}`);
      texts.splice(5, 0, 'wake 4');
      const ids = await Promise.all(texts.map((t) => store.enqueueEvent(t)));
      expect(ids[5]).toBeUndefined();
      const added = ids.filter((id) => id !== undefined);
      expect(added).toHaveLength(24);
      expect(added).toEqual([...added].sort((a, b) => a - b));
      const { rows } = await pool.query<{ status: string; n: number; at: number }>(
        'SELECT status, COUNT(*)::int AS n, COUNT(DISTINCT created_at)::int AS at FROM events GROUP BY status ORDER BY status',
      );
      // one call: one time for every row it inserted
      expect(rows).toEqual([{ status: 'dropped', n: 4, at: 1 }, { status: 'pending', n: 20, at: 1 }]);

      await Promise.all([1, 2, 3].map((n) => store.recordReceipt(receipt(n))));
      const receipts = await pool.query('SELECT request_id, event_id, auth_method, retained_until FROM receipts ORDER BY request_id');
      expect(receipts.rows).toEqual([1, 2, 3].map((n) => ({ request_id: `req-${n}`, event_id: String(n), auth_method: 'bearer', retained_until: null })));
    } finally {
      await pool.end();
      await store.close();
    }
  });
});
