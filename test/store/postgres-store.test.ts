import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, StoreUnavailableError } from '../../src/errors.js';
import pg from 'pg';
import { CompletionBatch } from '../../src/store/postgres/completion-batch.js';
import { PgGroupCommit } from '../../src/store/postgres/group-commit.js';
import { PgTurnBatch } from '../../src/store/postgres/turn-batch.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { queuedRun } from './run-record.js';
import { runFilter } from '../../src/store/queries/browse-filters.js';
import { runsListPage } from '../../src/store/postgres/browse-repo.js';
import { AWAITING_DELIVERY } from '../../src/store/postgres/deliveries-repo.js';
import type { RunQuery } from '../../src/store/port.js';
import { ListFilter, postgresDialect } from '../../src/store/queries/list-filter.js';
import { receiptFilter } from '../../src/store/queries/receipt-filter.js';
import { eventually } from '../helpers/start-herald.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const schemas: string[] = [];
const open = async (schema = uniqueSchema()) => {
  schemas.push(schema);
  return openPostgresStore({ url: PG_URL, schema, poolSize: 4 });
};

const opened: PostgresStore[] = [];
beforeAll(requirePostgres);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

describe('postgres store: what only this adapter has', () => {
  it('migrates a fresh schema once, even when replicas open it together, and records the version', async () => {
    const schema = uniqueSchema();
    const stores = await Promise.all([open(schema), open(schema), open(schema)]);
    const { rows } = await stores[0]!.pool.query('SELECT version FROM herald_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(rows.map((_, i) => i + 1));
    await Promise.all(stores.map((s) => s.close()));
  });

  it('turn batch: the inserts of one turn go as one statement; one that fails fails alone, the others are written', async () => {
    const store = await open();
    opened.push(store);
    await store.pool.query('CREATE TABLE t (x TEXT PRIMARY KEY)');
    const statements: number[] = [];
    const batch = new PgTurnBatch<string>(store.pool, (items) => {
      statements.push(items.length);
      return { text: 'INSERT INTO t (x) SELECT * FROM unnest($1::text[])', values: [items] };
    });
    await Promise.all([batch.add('a'), batch.add('b'), batch.add('c')]);
    expect(statements).toEqual([3]);
    const results = await Promise.allSettled([batch.add('d'), batch.add('a'), batch.add('e')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const { rows } = await store.pool.query('SELECT x FROM t ORDER BY x');
    expect(rows.map((r) => r.x)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('turn batch with one statement in flight: what is asked for meanwhile goes together in the next, in order, each with its result', async () => {
    const store = await open();
    opened.push(store);
    await store.pool.query('CREATE TABLE t (n SERIAL PRIMARY KEY, x TEXT UNIQUE)');
    const statements: string[][] = [];
    const batch = new PgTurnBatch<string, number>(
      store.pool,
      (items) => {
        statements.push(items);
        // pg_sleep: the first statement is still on its way while the next turns ask
        return { text: 'INSERT INTO t (x) SELECT x FROM unnest($1::text[]) WITH ORDINALITY AS u(x, i), pg_sleep(0.05) ORDER BY i RETURNING n', values: [items] };
      },
      (rows) => rows.map((r) => Number(r.n)),
      1,
    );
    const first = batch.add('a');
    await new Promise((r) => setTimeout(r, 10));
    const later = [batch.add('b'), batch.add('c')];
    await new Promise((r) => setImmediate(r));
    later.push(batch.add('d'));
    expect(await Promise.all([first, ...later])).toEqual([1, 2, 3, 4]);
    expect(statements).toEqual([['a'], ['b', 'c', 'd']]);
    batch.add('e');
    await batch.drain();
    const { rows } = await store.pool.query('SELECT x FROM t ORDER BY n');
    expect(rows.map((r) => r.x)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('runs inserted in one turn: in the order asked, each seeing the ones before it', async () => {
    const store = await open();
    opened.push(store);
    const runs = [{ ...queuedRun('r1'), sessionKey: 's1' }, { ...queuedRun('r2'), sessionKey: 's2' }, { ...queuedRun('r3'), sessionKey: 's1' }];
    await Promise.all(runs.map((r) => store.runs.insert(r)));
    const { rows } = await store.pool.query<{ id: string; waiting: boolean }>('SELECT id, waiting FROM runs ORDER BY seq');
    // the third waits behind the first: the statement's rows see the ones inserted before them
    expect(rows).toEqual([{ id: 'r1', waiting: false }, { id: 'r2', waiting: false }, { id: 'r3', waiting: true }]);
  });

  it('signals: a burst of publishes of one topic sends a few NOTIFYs, and the last is heard after the burst', async () => {
    const schema = uniqueSchema();
    const [a, b] = [await open(schema), await open(schema)];
    opened.push(a, b);
    let heard = 0;
    b.signals.subscribe('burst', () => heard++);
    for (let i = 0; i < 200; i++) a.signals.publish('burst');
    await eventually(() => expect(heard).toBeGreaterThan(0));
    await new Promise((r) => setTimeout(r, 200));
    // one at once, one for the rest of the burst
    expect(heard).toBeLessThanOrEqual(2);
  });

  it('signals: a burst of several topics reaches the other replica, every topic, in a few NOTIFY statements', async () => {
    const schema = uniqueSchema();
    const [a, b] = [await open(schema), await open(schema)];
    opened.push(a, b);
    const heard = new Map<string, number>();
    for (const topic of ['x', 'y', 'z']) b.signals.subscribe(topic, () => heard.set(topic, (heard.get(topic) ?? 0) + 1));
    for (let i = 0; i < 100; i++) for (const topic of ['x', 'y', 'z']) a.signals.publish(topic);
    await eventually(() => heard.size === 3);
    await new Promise((r) => setTimeout(r, 200));
    // the first statement carries x alone (sent at once), the next the rest of the burst: y and z once, x again
    expect(Object.fromEntries(heard)).toEqual({ x: 2, y: 1, z: 1 });
  });

  it('group commit: a work that fails fails alone (refused by PostgreSQL, or thrown after a write), the others of its group commit', async () => {
    const store = await open();
    opened.push(store);
    await store.pool.query('CREATE TABLE t (x TEXT PRIMARY KEY)');
    const commits = new PgGroupCommit(store.pool);
    const insert = (client: pg.PoolClient, x: string) => client.query('INSERT INTO t (x) VALUES ($1)', [x]);
    const results = await Promise.allSettled([
      commits.run((c) => insert(c, 'a')),
      commits.run(async (c) => {
        await insert(c, 'b');
        await insert(c, 'a');
      }),
      commits.run(async (c) => {
        await insert(c, 'c');
        throw new Error('thrown after a write');
      }),
      commits.run((c) => insert(c, 'd')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(results[1]).toMatchObject({ reason: { code: '23505' } });
    expect(results[2]).toMatchObject({ reason: { message: 'thrown after a write' } });
    const { rows } = await store.pool.query('SELECT x FROM t ORDER BY x');
    expect(rows.map((r) => r.x)).toEqual(['a', 'd']);
  });

  it('group commit with one transaction in flight: what is asked for meanwhile, over several turns, commits together in the next', async () => {
    const store = await open();
    opened.push(store);
    const commits = new PgGroupCommit(store.pool, 1);
    const txid = async (client: pg.PoolClient) => (await client.query<{ x: string }>('SELECT txid_current() AS x')).rows[0]!.x;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = commits.run(async (c) => {
      const x = await txid(c);
      await held;
      return x;
    });
    const turn = () => new Promise((resolve) => setTimeout(resolve, 20));
    await turn();
    const second = commits.run(txid);
    await turn();
    const third = commits.run(txid);
    await turn();
    release();
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(b).not.toBe(a);
    expect(c).toBe(b);
    await commits.drain();
  });

  it('completion batch: a lone completion goes at once; after a batch of several, the next waits out its pause and takes what comes meanwhile', async () => {
    const store = await open();
    opened.push(store);
    const sent: string[][] = [];
    // a pause no test outlasts: what ends it here is flush(), as a closing store's drain does
    const batch = new CompletionBatch<string, string>(new PgGroupCommit(store.pool, 1), async (client, items) => {
      sent.push(items);
      await client.query('SELECT 1');
      return items.map((item) => item.toUpperCase());
    }, 60_000);
    expect(await batch.add('a')).toBe('A');
    expect(await Promise.all([batch.add('b'), batch.add('c')])).toEqual(['B', 'C']);
    const d = batch.add('d');
    // a round trip and more: sent at once, d would have been written by now
    await store.pool.query('SELECT pg_sleep(0.05)');
    expect(sent).toEqual([['a'], ['b', 'c']]);
    const e = batch.add('e');
    batch.flush();
    expect(await Promise.all([d, e])).toEqual(['D', 'E']);
    expect(sent).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });

  it('stores a turn appended together whole or not at all', async () => {
    const store = await open();
    opened.push(store);
    await store.sessions.appendMany('chat:a', [
      { role: 'user', content: 'question', createdAt: 1, meta: { agentId: 'x' } },
      { role: 'assistant', content: 'answer', createdAt: 2, meta: { agentId: 'x' } },
    ]);
    // the second message breaks a constraint: the first must not stay behind alone
    const broken = [{ role: 'user' as const, content: 'orphan', createdAt: 3 }, { role: 'assistant' as const, content: null as unknown as string, createdAt: 4 }];
    await expect(store.sessions.appendMany('chat:a', broken)).rejects.toThrow();
    expect((await store.sessions.messages('chat:a')).map((m) => [m.role, m.content])).toEqual([
      ['user', 'question'],
      ['assistant', 'answer'],
    ]);
  });

  it('keeps deployments apart by schema', async () => {
    const [a, b] = [await open(), await open()];
    await a.runs.insert(queuedRun('only-in-a'));
    expect(await a.runs.get('only-in-a')).toMatchObject({ id: 'only-in-a', status: 'queued' });
    expect(await b.runs.get('only-in-a')).toBeUndefined();
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a schema a newer herald migrated, and a schema name that is not an identifier', async () => {
    const schema = uniqueSchema();
    const store = await open(schema);
    const { rows } = await store.pool.query<{ v: number }>('SELECT MAX(version) AS v FROM herald_migrations');
    await store.pool.query("INSERT INTO herald_migrations VALUES ($1, 'from the future', 0)", [rows[0]!.v + 1]);
    await store.close();
    await expect(open(schema)).rejects.toThrow(/storage\.postgres: schema .* newer than this herald knows/);
    await expect(openPostgresStore({ url: PG_URL, schema: 'Robert"); DROP' })).rejects.toThrow(ConfigError);
  });

  it('refuses to start, naming the key and hiding the password, when the database does not answer', async () => {
    const error = await openPostgresStore({ url: 'postgres://postgres:s3cret@127.0.0.1:1/test' }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/^storage\.postgres: cannot open /);
    expect(error.message).not.toContain('s3cret');
  });

  it('answers StoreUnavailableError (503, Retry-After) while the database is away, and reconnects by itself', async () => {
    const url = new URL(PG_URL);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const schema = uniqueSchema();
    schemas.push(schema);
    const store = await openPostgresStore({ url: url.toString(), schema, poolSize: 2 });
    try {
      await store.runs.insert(queuedRun('before'));
      await proxy.cut();
      const error = await store.runs.insert(queuedRun('during')).catch((e) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).toMatchObject({ status: 503, code: 'HERALD_STORE_UNAVAILABLE', headers: { 'Retry-After': expect.any(String) } });
      await expect(store.probe.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
      await proxy.restore();
      await eventually(() => store.probe.ping().then(() => true));
      await store.runs.insert(queuedRun('after'));
      // nothing of the refused write reached the database
      expect(await store.runs.get('during')).toBeUndefined();
      expect(await store.runs.get('after')).toMatchObject({ id: 'after' });
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it("keeps a session's summary with one upsert per statement: the trigger is a statement's, not a row's", async () => {
    const store = await open();
    opened.push(store);
    const { rows: triggers } = await store.pool.query<{ tgname: string; row: boolean }>(
      "SELECT tgname, (tgtype & 1) = 1 AS row FROM pg_trigger WHERE tgrelid = 'session_messages'::regclass AND NOT tgisinternal",
    );
    expect(triggers).toEqual([{ tgname: 'session_messages_summarised', row: false }]);
    // the summary's writes inside one transaction: a new session's turn inserts it once; the next turn updates it once
    const client = await store.pool.connect();
    try {
      await client.query('BEGIN');
      const written = async () =>
        (await client.query<{ ins: number; upd: number }>("SELECT n_tup_ins AS ins, n_tup_upd AS upd FROM pg_stat_xact_user_tables WHERE relid = 'session_summaries'::regclass")).rows[0];
      const turn = (at: number) =>
        client.query("INSERT INTO session_messages (session_key, role, content, created_at) VALUES ('chat:a', 'user', 'hi', $1), ('chat:a', 'assistant', 'yo', $2)", [at, at + 1]);
      await turn(1);
      expect(await written()).toEqual({ ins: 1, upd: 0 });
      await turn(10);
      expect(await written()).toEqual({ ins: 1, upd: 1 });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await store.pool.query("SELECT messages, first_at, last_at FROM session_summaries WHERE key = 'chat:a'");
    expect(rows).toEqual([{ messages: 4, first_at: 1, last_at: 11 }]);
  });

  it('keeps the run counts through a batch inserted in one turn, a claim of many, a renewal that moves no status and a deletion of several', async () => {
    const store = await open();
    opened.push(store);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.runs.insert(queuedRun(`batch-${i}`, i + 1))));
    expect((await store.probe.counts()).runs).toEqual({ queued: 20, running: 0, waitingApproval: 0 });
    const lease = { owner: 'a', now: 100, until: Date.now() + 60_000 };
    expect(await store.runs.claim(lease, 16)).toHaveLength(16);
    expect((await store.probe.counts()).runs).toEqual({ queued: 4, running: 16, waitingApproval: 0 });
    // a renewal moves no status: nothing counted
    expect(await store.runs.renew(['batch-0', 'batch-1'], 'a', Date.now() + 120_000)).toEqual(['batch-0', 'batch-1']);
    await store.pool.query("DELETE FROM runs WHERE id IN ('batch-16', 'batch-17', 'batch-0')");
    expect((await store.probe.counts()).runs).toEqual({ queued: 2, running: 15, waitingApproval: 0 });
  });

  it('claims from a backlog by reading a few pages, even when the statistics have not seen the backlog', async () => {
    const store = await open();
    opened.push(store);
    const insert = (status: string, prefix: string, from: number, count: number) =>
      store.pool.query(
        `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at)
         SELECT $1 || i, $2, 'main', 'Backlog', $1 || i, 'ping', '{}'::jsonb, false, $3 + i FROM generate_series(1, $4) AS i`,
        [prefix, status, from, count],
      );
    // a backlog the table's statistics have not seen (none taken yet, as in a fresh schema before
    // autovacuum looks): a plan chosen by them reads all 6,000 ready runs and sorts them, for one
    await insert('succeeded', 'done-', 0, 200);
    await insert('queued', 'backlog-', 1000, 6000);
    const client = await store.pool.connect();
    try {
      await client.query('BEGIN');
      // the first call plans the function's statements (catalog reads); the second reads what a claim reads
      const first = await client.query<{ id: string }>("SELECT id FROM herald_claim_runs('a', 1, 2, 1)");
      expect(first.rows).toEqual([{ id: 'backlog-1' }]);
      const { rows } = await client.query<{ 'QUERY PLAN': { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[] }>(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT id FROM herald_claim_runs('a', 1, 2, 1)",
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      // the walk of runs_ready in seq order: a few index and heap pages, and the counting triggers'
      // (reading every ready run and sorting them reads every page they fill)
      expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(100);
      const third = await client.query<{ id: string }>("SELECT id FROM herald_claim_runs('a', 1, 2, 1)");
      expect(third.rows).toEqual([{ id: 'backlog-3' }]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('asks whether a governed run is unfinished through its index, however the runs grew after the question was first planned', async () => {
    const store = await open();
    opened.push(store);
    const client = await store.pool.connect();
    try {
      // planned on the new, empty table, as a replica's first claims plan it, and kept for the session
      for (let i = 0; i < 6; i++) expect((await client.query('SELECT herald_governed_waiting() AS any')).rows[0].any).toBe(false);
      await client.query(
        `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at, finished_at)
         SELECT 'done-' || i, 'succeeded', 'main', 'Hook', 'done-' || i, 'ping', '{}'::jsonb, false, i, i FROM generate_series(1, 6000) AS i`,
      );
      // the scans of the runs table the question makes, as PostgreSQL counts them for this session
      // (pages read would count the catalog too, which other schemas' creation and removal make it read again)
      const scans = async () =>
        (await client.query<{ seq: number; idx: number }>("SELECT seq_scan::int AS seq, idx_scan::int AS idx FROM pg_stat_xact_user_tables WHERE relid = 'runs'::regclass")).rows[0]!;
      await client.query('BEGIN');
      const before = await scans();
      expect((await client.query('SELECT herald_governed_waiting() AS any')).rows[0].any).toBe(false);
      const after = await scans();
      await client.query('COMMIT');
      // runs_governed holds the unfinished governed runs only: a sequential scan would read all 6,000
      expect({ seq: after.seq - before.seq, idx: after.idx - before.idx }).toEqual({ seq: 0, idx: 1 });
    } finally {
      client.release();
    }
  });

  it('claims and completes runs through the primary key and the queue indexes, never through the lists\' index of unfinished runs', async () => {
    const schema = uniqueSchema();
    const store = await open(schema);
    for (let i = 1; i <= 40; i++) await store.runs.insert(queuedRun(`u${i}`, i));
    const lease = () => ({ owner: 'a', now: Date.now(), until: Date.now() + 60_000 });
    const done = (id: string) => ({
      status: 'succeeded' as const, reply: 'ok', at: Date.now(),
      transcript: [{ role: 'assistant' as const, content: 'ok', runId: id, createdAt: Date.now() }],
      summary: { session: 'main', text: `Hook ${id}: ok`, maxPending: 20 },
    });
    for (const run of await store.runs.claim(lease(), 20)) await store.runs.completeAndClaimNext(run.id, done(run.id), lease());
    // the backends' statistics reach pg_stat_user_indexes when they end
    await store.close();
    const scans = async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string; n: number }>('SELECT indexrelname AS name, idx_scan::int AS n FROM pg_stat_user_indexes WHERE schemaname = $1', [schema]);
        return Object.fromEntries(rows.map((r) => [r.name, r.n]));
      } finally {
        await client.end();
      }
    };
    await eventually(async () => expect((await scans()).runs_pkey).toBeGreaterThan(0));
    // a run's completion (WHERE id = $1 AND status IN ('queued', 'running')) read runs_unfinished when it held the id
    expect((await scans()).runs_unfinished).toBe(0);
  });

  it('completes the runs asked together in one call, a refused one and a failing one alone, the others committed with their claims', async () => {
    const store = await open();
    opened.push(store);
    for (const [id, at] of [['c1', 1], ['c2', 2], ['c3', 3], ['c4', 4], ['next1', 5], ['next2', 6]] as const) await store.runs.insert(queuedRun(id, at));
    const lease = (now: number) => ({ owner: 'a', now, until: Date.now() + 60_000 });
    expect((await store.runs.claim(lease(7), 4)).map((r) => r.id)).toEqual(['c1', 'c2', 'c3', 'c4']);
    const done = (id: string, content: string) => ({
      status: 'succeeded' as const,
      reply: 'ok',
      at: 8,
      transcript: [{ role: 'user' as const, content, runId: id, meta: { wrapped: true }, createdAt: 8 }, { role: 'assistant' as const, content: 'ok', runId: id, meta: null, createdAt: 8 }],
      summary: { session: 'main', text: `Hook ${id}: ok`, maxPending: 20 },
    });
    // one turn's completions: c3's transcript breaks a NOT NULL column, `gone` is no run at all
    const results = await Promise.allSettled([
      store.runs.completeAndClaimNext('c1', done('c1', 'hi 1'), lease(8)),
      store.runs.completeAndClaimNext('gone', done('gone', 'hi'), lease(8)),
      store.runs.completeAndClaimNext('c3', done('c3', null as unknown as string), lease(8)),
      store.runs.completeAndClaimNext('c2', done('c2', 'hi 2'), lease(8)),
    ]);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { finished: true, claimed: [{ id: 'next1', status: 'running' }] } });
    expect(results[1]).toEqual({ status: 'fulfilled', value: { finished: false } });
    expect(results[2].status).toBe('rejected');
    expect(results[3]).toMatchObject({ status: 'fulfilled', value: { finished: true, claimed: [{ id: 'next2', status: 'running' }] } });
    expect(await store.runs.get('c3')).toMatchObject({ status: 'running' });
    expect(await store.runs.get('c1')).toMatchObject({ status: 'succeeded', finishedAt: 8 });
    // each transcript in its order, a message's meta kept as given
    const messages = await store.sessions.messages('hook:c1');
    expect(messages.map((m) => [m.role, m.content, m.meta])).toEqual([['user', 'hi 1', { wrapped: true }], ['assistant', 'ok', null]]);
    expect((await store.events.list('main', 10)).map((e) => e.text).sort()).toEqual(['Hook c1: ok', 'Hook c2: ok']);
  });

  it("completes a batch as its completions one by one would: transcripts in order, each summary under its queue's rules, a claim for each", async () => {
    const store = await open();
    opened.push(store);
    const ids = ['b1', 'b2', 'b3', 'b4', 'b5'];
    for (const [i, id] of [...ids, 'next1', 'next2', 'next3'].entries()) await store.runs.insert({ ...queuedRun(id, i + 1), sessionKey: id.startsWith('b') ? 'hook:batch' : `hook:${id}` });
    const lease = (now: number) => ({ owner: 'a', now, until: Date.now() + 60_000 });
    // the batch's runs share a session, so only its head is claimable: complete them one claim at a time first
    await store.pool.query("UPDATE runs SET waiting = false, status = 'running', lease_owner = 'a', lease_until = $1 WHERE id LIKE 'b%'", [Date.now() + 60_000]);
    // b2 and b3 say the same: the second is skipped (it repeats the newest open event); at most 2 pending
    const summary = (id: string) => ({ session: 'main', text: id === 'b3' ? 'Hook b2: ok' : `Hook ${id}: ok`, maxPending: 2 });
    const done = (id: string) => ({
      status: 'succeeded' as const,
      reply: `reply ${id}`,
      at: 9,
      transcript: [
        { role: 'user' as const, content: `asked ${id}`, runId: id, meta: null, createdAt: 9 },
        { role: 'assistant' as const, content: `reply ${id}`, runId: id, meta: null, createdAt: 9 },
      ],
      summary: summary(id),
    });
    const results = await Promise.all(ids.map((id) => store.runs.completeAndClaimNext(id, done(id), lease(9))));
    // three runs were ready: the first three completed get one each, in seq order
    expect(results.map((r) => (r.finished ? (r.claimed ?? []).map((c) => c.id) : 'refused'))).toEqual([['next1'], ['next2'], ['next3'], [], []]);
    const messages = await store.sessions.messages('hook:batch');
    expect(messages.map((m) => m.content)).toEqual(ids.flatMap((id) => [`asked ${id}`, `reply ${id}`]));
    const events = await store.events.list('main', 10);
    expect(events.map((e) => [e.text, e.status]).reverse()).toEqual([
      ['Hook b1: ok', 'dropped'],
      ['Hook b2: ok', 'dropped'],
      ['Hook b4: ok', 'pending'],
      ['Hook b5: ok', 'pending'],
    ]);
  });

  it('claims past the runs other claimers hold without reading them, and still takes a run whose lease ran out', async () => {
    const store = await open();
    opened.push(store);
    // 10,000 runs under live leases (what replicas hold, claimed ahead), then 10 queued, each run its own session
    await store.pool.query(
      `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at, started_at, lease_owner, lease_until)
       SELECT 'held-' || i, 'running', 'main', 'Held', 'held-' || i, 'ping', '{}'::jsonb, false, i, i, 'other', 10000000 FROM generate_series(1, 10000) AS i`,
    );
    await store.pool.query(
      `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at)
       SELECT 'queued-' || i, 'queued', 'main', 'Queued', 'queued-' || i, 'ping', '{}'::jsonb, false, 20000 + i FROM generate_series(1, 10) AS i`,
    );
    const client = await store.pool.connect();
    try {
      await client.query('BEGIN');
      expect((await client.query<{ id: string }>("SELECT id FROM herald_claim_runs('a', 1, 2, 1)")).rows).toEqual([{ id: 'queued-1' }]);
      const { rows } = await client.query<{ 'QUERY PLAN': { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[] }>(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT id FROM herald_claim_runs('a', 1, 2, 1)",
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      // walking the held runs in seq order reads each one's row to see its lease (hundreds of pages)
      expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(100);
      await client.query('ROLLBACK');
      // once their leases have run out (a dead claimer), the held runs come first, in seq order
      const taken = await client.query<{ id: string }>("SELECT id FROM herald_claim_runs('a', 20000000, 20000001, 3)");
      expect(taken.rows.map((r) => r.id)).toEqual(['held-1', 'held-2', 'held-3']);
    } finally {
      client.release();
    }
  });

  // 200,000 rows written through the runs' triggers first: more than the default test time on a busy machine
  it("lists runs by status, a run's requests, a mapping's and the failed ones from indexes that hold only what those lists read (migrations 26, 28, 30, 31, 32)", { timeout: 90_000 }, async () => {
    const store = await open();
    opened.push(store);
    // 100,000 finished runs of the direct /hooks/agent, a few failed, a backlog of queued ones; a receipt per wake (no run) and one per run
    await store.pool.query(
      `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at, finished_at)
       SELECT 'r-' || i, CASE WHEN i % 2000 = 0 THEN 'failed' ELSE 'succeeded' END, 'main', 'Run', 'hook:r-' || i, 'ping',
         '{"source":{"mappingId":"agent","path":"agent"}}'::jsonb, false, i, i
       FROM generate_series(1, 100000) AS i`,
    );
    await store.pool.query(
      `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at)
       SELECT 'q-' || i, 'queued', 'main', 'Queued', 'hook:q-' || i, 'ping', '{}'::jsonb, false, 100000 + i FROM generate_series(1, 500) AS i`,
    );
    await store.pool.query(
      `INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, run_id, auth_method, body_bytes, latency_ms)
       SELECT 'rc-' || i, 'req-' || i, i, 'POST', '/hooks/wake', CASE WHEN i % 10 = 0 THEN 'agent' ELSE 'wake' END, CASE WHEN i % 1000 = 0 THEN 401 ELSE 200 END,
         'accepted', CASE WHEN i % 10 = 0 THEN 'r-' || i END, 'bearer', 10, 1
       FROM generate_series(1, 100000) AS i`,
    );
    await store.pool.query('ANALYZE runs; ANALYZE receipts');
    // the newest event of a session is read by time, from the index the operator's lists read
    expect((await store.pool.query("SELECT to_regclass('events_session_id') AS r")).rows[0].r).toBeNull();
    const explain = async (sql: string, values: unknown[]) => {
      const { rows } = await store.pool.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
        values,
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      return { text: JSON.stringify(plan), blocks: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] };
    };
    const runsPage = (status: 'failed' | 'queued' | 'succeeded') => {
      const f = runFilter(new ListFilter(postgresDialect, 'created_at', 'id'), { status, limit: 2 });
      return { sql: `SELECT id FROM runs ${f.sql()} ${f.order(2)}`, values: f.values };
    };
    const size = async (index: string) => Number((await store.pool.query<{ n: string }>(`SELECT pg_relation_size($1::regclass) AS n`, [index])).rows[0]!.n);
    const ids = async (page: { sql: string; values: unknown[] }) => (await store.pool.query<{ id: string }>(page.sql, page.values)).rows.map((r) => r.id);
    // a seq scan of the runs reads thousands of pages; each page comes from its partial index
    const failed = await explain(runsPage('failed').sql, runsPage('failed').values);
    expect(failed.text).toContain('runs_status');
    expect(failed.blocks).toBeLessThan(200);
    const queued = await explain(runsPage('queued').sql, runsPage('queued').values);
    expect(queued.text).toMatch(/runs_unfinished|runs_session_unfinished|runs_queued/);
    expect(queued.blocks).toBeLessThan(200);
    expect(await ids(runsPage('queued'))).toEqual(['q-500', 'q-499']);
    // the list of all runs: its page of finished runs from runs_created (which holds only them), its
    // page of unfinished ones from runs_unfinished, the newest of both
    const allRuns = (query: RunQuery) => {
      const { text, values } = runsListPage(query);
      return { sql: text, values };
    };
    const everyRun = await explain(allRuns({ limit: 3 }).sql, allRuns({ limit: 3 }).values);
    expect(everyRun.text).toContain('runs_created');
    expect(everyRun.text).toContain('"runs_unfinished"');
    expect(everyRun.blocks).toBeLessThan(200);
    expect(await ids(allRuns({ limit: 3 }))).toEqual(['q-500', 'q-499', 'q-498']);
    expect(await ids(allRuns({ limit: 2, after: { at: 100001, id: 'q-1' } }))).toEqual(['r-100000', 'r-99999']);
    const ofSession = await explain(allRuns({ sessionKey: 'hook:r-7', limit: 50 }).sql, allRuns({ sessionKey: 'hook:r-7', limit: 50 }).values);
    expect(ofSession.text).toContain('runs_session');
    expect(ofSession.blocks).toBeLessThan(20);
    expect(await ids(allRuns({ sessionKey: 'hook:q-7', limit: 50 }))).toEqual(['q-7']);
    expect(await ids(allRuns({ sessionKey: 'hook:r-7', limit: 50 }))).toEqual(['r-7']);
    expect(await ids(runsPage('failed'))).toEqual(['r-100000', 'r-98000']);
    // the succeeded runs (most of them) newest first from runs_created; runs_status holds the others only
    const succeeded = await explain(runsPage('succeeded').sql, runsPage('succeeded').values);
    expect(succeeded.text).toContain('runs_created');
    expect(succeeded.blocks).toBeLessThan(20);
    expect(await ids(runsPage('succeeded'))).toEqual(['r-99999', 'r-99998']);
    expect(await size('runs_status')).toBeLessThan((await size('runs_created')) / 4);
    const f = receiptFilter(new ListFilter(postgresDialect, 'received_at', 'id'), { runId: 'r-500', limit: 50 }, Date.now());
    const byRun = await explain(`SELECT id FROM receipts ${f.sql()} ${f.order(50)}`, f.values);
    expect(byRun.text).toContain('receipts_run');
    expect(byRun.blocks).toBeLessThan(20);
    // the failed requests from receipts_failed (which holds them alone), a status most requests have newest first from receipts_received
    for (const query of [{ status: 401 }, { result: 'error' as const }]) {
      const failedReceipts = receiptFilter(new ListFilter(postgresDialect, 'received_at', 'id'), { ...query, limit: 2 }, Date.now());
      const page = { sql: `SELECT id FROM receipts ${failedReceipts.sql()} ${failedReceipts.order(2)}`, values: failedReceipts.values };
      const read = await explain(page.sql, page.values);
      expect(read.text).toContain('receipts_failed');
      expect(read.blocks).toBeLessThan(20);
      expect(await ids(page)).toEqual(['rc-100000', 'rc-99000']);
    }
    const accepted = receiptFilter(new ListFilter(postgresDialect, 'received_at', 'id'), { status: 200, limit: 50 }, Date.now());
    const acceptedRead = await explain(`SELECT id FROM receipts ${accepted.sql()} ${accepted.order(50)}`, accepted.values);
    expect(acceptedRead.text).toContain('receipts_received');
    expect(acceptedRead.blocks).toBeLessThan(20);
    expect(await size('receipts_failed')).toBeLessThan((await size('receipts_received')) / 4);
    const byMapping = receiptFilter(new ListFilter(postgresDialect, 'received_at', 'id'), { mappingId: 'github', limit: 50 }, Date.now());
    expect((await explain(`SELECT id FROM receipts ${byMapping.sql()} ${byMapping.order(50)}`, byMapping.values)).text).toContain('receipts_mapping');
    // the replies awaiting delivery at start-up: runs_to_deliver holds none of these runs (deliver false)
    const awaiting = await explain(AWAITING_DELIVERY, [0]);
    expect(awaiting.text).toContain('runs_to_deliver');
    expect(awaiting.blocks).toBeLessThan(20);
    const runsOfMapping = allRuns({ mappingId: 'github', limit: 50 });
    expect((await explain(runsOfMapping.sql, runsOfMapping.values)).text).toContain('runs_mapping');
    // a built-in endpoint's runs and requests, which the mapping indexes leave out, newest first by time
    expect(await ids(allRuns({ mappingId: 'agent', limit: 2 }))).toEqual(['r-100000', 'r-99999']);
    const ofWake = receiptFilter(new ListFilter(postgresDialect, 'received_at', 'id'), { mappingId: 'wake', limit: 2 }, Date.now());
    expect(await ids({ sql: `SELECT id FROM receipts ${ofWake.sql()} ${ofWake.order(2)}`, values: ofWake.values })).toEqual(['rc-99999', 'rc-99998']);
    // the partial indexes hold only what they serve: the receipts that started a run, the runs and requests a mapping other than a built-in made (none here)
    expect(await size('receipts_run')).toBeLessThan((await size('receipts_received')) / 4);
    expect(await size('receipts_mapping')).toBeLessThan((await size('receipts_received')) / 4);
    expect(await size('runs_mapping')).toBeLessThan((await size('runs_created')) / 4);
  });

  it("enqueues by reading a few pages, however many events the session dropped before (and no vacuum has cleared)", async () => {
    const store = await open();
    opened.push(store);
    const client = await store.pool.connect();
    try {
      await client.query('SET synchronous_commit = off');
      const enqueue = (from: number) =>
        client.query('SELECT n, id FROM herald_enqueue_events($1, $2::text[], 20, 1)', ['main', Array.from({ length: 25 }, (_, i) => `event ${from + i}`)]);
      // 10,000 events, all but the newest 20 dropped: their old entries stay in the status index until a vacuum
      for (let i = 0; i < 400; i++) await enqueue(i * 25);
      const { rows } = await client.query<{ 'QUERY PLAN': { Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }[] }>(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT n, id FROM herald_enqueue_events('main', ARRAY['a', 'b', 'c'], 20, 1)",
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      // walking past every dropped event reads every page their entries and rows fill (thousands)
      expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(150);
      expect(await store.events.countPending('main')).toBe(20);
    } finally {
      client.release();
    }
  });
});
