import pg from 'pg';
import { pgGroupCommit } from './baseline-pg-group-commit.js';
import { PG_RUN_TABLES, pgRunExecutor } from './baseline-pg-runs.js';
import { pgTurnBatch } from './baseline-pg-turn-batch.js';
import { INSERT_RECEIPTS_PG, RECEIPTS_TABLE_PG, receiptColumnsPg, type BaselineReceipt } from './baseline-receipts.js';

/**
 * The baseline's PostgreSQL store (BASELINE_PG_URL): the same records as herald's (an events row
 * through the events function for a wake, a runs row and its session's summary for an agent
 * request, a receipt row per request, and for executed runs the run's completion), each written
 * the way herald's adapter writes it: the wakes, the receipts and the runs of a turn each as one
 * statement in autocommit (bench/baseline-pg-turn-batch.ts; one wakes or receipts statement in
 * flight, the runs' statements without a limit); the claims and completions through a group commit
 * (bench/baseline-pg-group-commit.ts). The statements sent per request or per run are named, as
 * herald's: each connection has PostgreSQL parse and plan them once. Its tables, as the SQLite
 * baseline's (bench/baseline-database.ts):
 * - `own`: tables of its own with only the indexes its reads need (created here);
 * - `herald`: a schema the bench made with herald's migrations, so every row costs what it costs
 *   herald (indexes, counting triggers, the session summary's trigger); nothing is created.
 * Self-contained (no herald imports).
 */
export interface PgBaselineStore {
  enqueueEvent(text: string): Promise<number | undefined>;
  insertRun(id: string, name: string, sessionKey: string, message: string, action: string, mappingId: string, deliver: boolean): Promise<void>;
  executeRuns(): void;
  recordReceipt(receipt: BaselineReceipt): Promise<void>;
  close(): Promise<void>;
}

const MAX_PENDING = 20;

const ENQUEUE_EVENTS = { name: 'baseline_enqueue_events', text: 'SELECT n, id FROM herald_enqueue_events($1, $2::text[], $3, $4)' };

/** the runs columns the baseline fills, as arrays unnested into rows: one text for any count */
const RUN_TYPES = ['text', 'text', 'text', 'text', 'jsonb', 'boolean', 'bigint'];

/**
 * The runs of a turn in one INSERT, in the order given (their seq follows it), each new session
 * listed in session_summaries from its first run on (no message yet), as herald's runs adapter
 * writes them (src/store/postgres/runs-repo.ts, INSERT_RUNS): both tables in one statement.
 */
const INSERT_RUNS = {
  name: 'baseline_insert_runs',
  text: `WITH run AS (
    INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at)
    SELECT id, 'queued', 'main', name, session_key, message, action, deliver, created_at
    FROM unnest(${RUN_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) WITH ORDINALITY
      AS r(id, name, session_key, message, action, deliver, created_at, n)
    ORDER BY n
    RETURNING session_key, agent_id, created_at)
  INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
  SELECT session_key, CASE WHEN session_key = 'main' THEN NULL ELSE agent_id END, 0, created_at, created_at FROM run
  ON CONFLICT (key) DO NOTHING`,
};

interface NewRun {
  id: string;
  name: string;
  sessionKey: string;
  message: string;
  action: string;
  deliver: boolean;
  createdAt: number;
}

// herald's events table and functions (src/store/postgres/migrations.ts, as of migration 23), copied;
// the runs the executor claims are found by a partial index over the queued ones
const OWN_TABLES = `
  CREATE TABLE IF NOT EXISTS events (id BIGSERIAL PRIMARY KEY, session TEXT NOT NULL, text TEXT NOT NULL, status TEXT NOT NULL,
    created_at BIGINT NOT NULL, lease_owner TEXT, lease_until BIGINT);
  -- the open events apart: the drop's search for the newest pending never walks past the dropped ones
  CREATE INDEX IF NOT EXISTS events_open ON events (session, status, id) WHERE status IN ('pending', 'processing');
  CREATE INDEX IF NOT EXISTS events_session_id ON events (session, id);
  CREATE OR REPLACE FUNCTION herald_drop_overflow(p_session TEXT, p_max INT) RETURNS void LANGUAGE plpgsql AS $f$
  BEGIN
    UPDATE events SET status = 'dropped' WHERE events.id IN (SELECT d.id FROM events d WHERE d.session = p_session AND d.status = 'pending' AND d.id <=
      (SELECT e.id FROM events e WHERE e.session = p_session AND e.status = 'pending' ORDER BY e.id DESC LIMIT 1 OFFSET p_max) ORDER BY d.id FOR UPDATE SKIP LOCKED);
  END $f$;
  CREATE OR REPLACE FUNCTION herald_enqueue_event(p_session TEXT, p_text TEXT, p_max INT, p_now BIGINT)
  RETURNS SETOF events LANGUAGE plpgsql AS $$
  DECLARE prev events%ROWTYPE; added events%ROWTYPE;
  BEGIN
    SELECT * INTO prev FROM events WHERE session = p_session ORDER BY id DESC LIMIT 1;
    IF FOUND AND prev.text = p_text AND prev.status IN ('pending', 'processing') THEN RETURN; END IF;
    INSERT INTO events (session, text, status, created_at) VALUES (p_session, p_text, 'pending', p_now) RETURNING * INTO added;
    PERFORM herald_drop_overflow(p_session, p_max);
    RETURN NEXT added;
  END $$;
  -- herald_enqueue_events of herald's migration 23, copied: the texts of a turn in one call, with the
  -- outcome of herald_enqueue_event called for each in order (one overflow drop)
  CREATE OR REPLACE FUNCTION herald_enqueue_events(p_session TEXT, p_texts TEXT[], p_max INT, p_now BIGINT)
  RETURNS TABLE (n INT, id BIGINT) LANGUAGE plpgsql AS $$
  DECLARE prev_text TEXT; prev_live BOOLEAN;
  BEGIN
    IF p_max < 1 THEN
      FOR i IN 1 .. COALESCE(array_length(p_texts, 1), 0) LOOP
        RETURN QUERY SELECT i, e.id FROM herald_enqueue_event(p_session, p_texts[i], p_max, p_now) e;
      END LOOP;
      RETURN;
    END IF;
    SELECT e.text, e.status IN ('pending', 'processing') INTO prev_text, prev_live
      FROM events e WHERE e.session = p_session ORDER BY e.id DESC LIMIT 1;
    RETURN QUERY
      WITH input AS (
        SELECT t.text, t.n::int AS n, lag(t.text) OVER (ORDER BY t.n) AS before
        FROM unnest(p_texts) WITH ORDINALITY AS t(text, n)),
      kept AS (
        SELECT i.text, i.n FROM input i
        WHERE NOT CASE WHEN i.n = 1 THEN COALESCE(prev_live AND prev_text = i.text, false) ELSE i.before = i.text END),
      added AS (
        INSERT INTO events (session, text, status, created_at) SELECT p_session, k.text, 'pending', p_now FROM kept k ORDER BY k.n
        RETURNING events.id)
      SELECT k.n, a.id
      FROM (SELECT kept.n, row_number() OVER (ORDER BY kept.n) AS r FROM kept) k
      JOIN (SELECT added.id, row_number() OVER (ORDER BY added.id) AS r FROM added) a ON a.r = k.r;
    PERFORM herald_drop_overflow(p_session, p_max);
  END $$;
  CREATE TABLE IF NOT EXISTS runs (seq BIGSERIAL NOT NULL, id TEXT PRIMARY KEY, status TEXT NOT NULL, agent_id TEXT NOT NULL,
    name TEXT NOT NULL, session_key TEXT NOT NULL, message TEXT NOT NULL, action JSONB NOT NULL, deliver BOOLEAN NOT NULL DEFAULT TRUE,
    reply TEXT, error TEXT, created_at BIGINT NOT NULL, started_at BIGINT, finished_at BIGINT, lease_owner TEXT, lease_until BIGINT);
  CREATE INDEX IF NOT EXISTS runs_queued ON runs (seq) WHERE status = 'queued';
  ${PG_RUN_TABLES}
  ${RECEIPTS_TABLE_PG}
`;

export async function pgBaselineStore(url: string, schema: string, tables: 'own' | 'herald'): Promise<PgBaselineStore> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('BASELINE_PG_SCHEMA must be a plain identifier');
  // the application name lets the bench find this pool's backends (their CPU is the baseline's too)
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${schema}`, application_name: `baseline:${schema}` });
  pool.on('error', () => {});
  if (tables === 'own') {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await pool.query(OWN_TABLES);
  }
  const commit = pgGroupCommit(pool);
  const executor = pgRunExecutor(pool, commit, { heraldSchema: tables === 'herald' });
  // as herald's events adapter: the wakes of a turn (and of the turns while the last call was on
  // its way) in one call, in autocommit
  const enqueueEvent = pgTurnBatch(async (texts: string[]) => {
    const { rows } = await pool.query<{ n: number; id: string }>({ ...ENQUEUE_EVENTS, values: ['main', texts, MAX_PENDING, Date.now()] });
    // a text left out (a repeat of the event before it) has no row
    const ids: (number | undefined)[] = texts.map(() => undefined);
    for (const row of rows) ids[row.n - 1] = Number(row.id);
    return ids;
  });
  // as herald's receipts adapter: a turn's receipts (written after their responses) in one INSERT, in autocommit
  const recordReceipt = pgTurnBatch(async (receipts: BaselineReceipt[]) => {
    await pool.query({ ...INSERT_RECEIPTS_PG, values: receiptColumnsPg(receipts) });
    return receipts.map(() => undefined);
  });
  // as herald's runs adapter: a turn's runs in one INSERT, in autocommit, each turn's statement sent
  // at once (no limit in flight), a burst cut into statements of 256
  const insertRun = pgTurnBatch(async (runs: NewRun[]) => {
    const rows = runs.map((r) => [r.id, r.name, r.sessionKey, r.message, r.action, r.deliver, r.createdAt]);
    await pool.query({ ...INSERT_RUNS, values: RUN_TYPES.map((_, i) => rows.map((row) => row[i])) });
    return runs.map(() => undefined);
  }, Number.POSITIVE_INFINITY);
  return {
    enqueueEvent,
    insertRun: (id, name, sessionKey, message, action, _mappingId, deliver) =>
      insertRun({ id, name, sessionKey, message, action, deliver, createdAt: Date.now() }),
    executeRuns: () => executor.poke(),
    recordReceipt,
    close: () => pool.end(),
  };
}
