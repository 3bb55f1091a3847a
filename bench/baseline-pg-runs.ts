import type pg from 'pg';
import { cannedAnswer } from './baseline-answer.js';
import { claimLoop } from './baseline-claim-loop.js';

/**
 * The baseline's run executor on PostgreSQL, for `/hooks/agent-executed`: bench/baseline-runs.ts's
 * work, the way a raw `pg` server would do it. It claims queued runs in batches (32 held, as
 * herald's PostgreSQL adapter holds with quick turns at its default maxConcurrent; one UPDATE
 * over a FOR UPDATE SKIP LOCKED pick, so two servers never take the same run), reads each
 * run's session history (its newest 50 messages), answers (herald's embedded answer, word for
 * word), and completes the run in ONE statement through the group commit: the run's status and
 * reply, the turn's two messages, the session's summary and the run's summary event on the main
 * session (the events function: duplicate skip, 20-pending cap). The completions asked for while
 * one batch of them is on its way go in the next, which claims as many next runs in its
 * transaction, as herald's completion batch does. In herald's schema the session summary is kept by
 * herald's trigger, so the statement leaves it out. No leases, timeouts, chains or order within a
 * session: the floor an integrator's own glue would stand on.
 *
 * Self-contained (no herald imports), like the rest of the baseline.
 */
export interface PgRunExecutor {
  /** a run was committed queued: execute it (and whatever else is queued) */
  poke(): void;
}

const HELD = 32;
const HISTORY = 50;
const MAX_PENDING = 20;

/** the tables the executor writes beside runs and events, with only the indexes its reads need */
export const PG_RUN_TABLES = `
  CREATE TABLE IF NOT EXISTS session_messages (id BIGSERIAL PRIMARY KEY, session_key TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
    run_id TEXT, meta JSONB, created_at BIGINT NOT NULL);
  CREATE INDEX IF NOT EXISTS session_messages_key ON session_messages (session_key, id);
  CREATE TABLE IF NOT EXISTS session_summaries (key TEXT PRIMARY KEY, agent_id TEXT, messages INTEGER NOT NULL, first_at BIGINT NOT NULL, last_at BIGINT NOT NULL);
`;

interface QueuedRun {
  id: string;
  name: string;
  session_key: string;
  message: string;
}

// the claim and the completion run for every run: named, as herald's, so each connection has
// PostgreSQL parse and plan them once (the history read is not, as herald's is not)
// in herald's schema the queued runs' index (runs_queued, migration 24) holds the ready ones only, so
// the pick names its condition: without it that schema has no index in seq order to read, and each
// claim would sort the whole backlog
const claim = (inHeraldSchema: boolean) => ({
  name: inHeraldSchema ? 'baseline_claim_herald_schema' : 'baseline_claim',
  text: `UPDATE runs SET status = 'running', started_at = $1 WHERE id IN
  (SELECT id FROM runs WHERE status = 'queued' ${inHeraldSchema ? 'AND NOT waiting AND concurrency IS NULL ' : ''}ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING id, name, session_key, message`,
});

const HISTORY_READ = `SELECT role, content FROM session_messages WHERE session_key = $1 ORDER BY id DESC LIMIT ${HISTORY}`;

// $1 id, $2 reply, $3 now, $4 session, $5 message, $6 summary text; a name per text (a name
// stands for one text on a connection)
const completion = (summaryKept: boolean) => ({
  name: summaryKept ? 'baseline_complete_run' : 'baseline_complete_run_summarised',
  text: `WITH finished AS (
    UPDATE runs SET status = 'succeeded', reply = $2, finished_at = $3 WHERE id = $1 RETURNING id),
  turn AS (
    INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at) VALUES ($4, 'user', $5, $1, NULL, $3), ($4, 'assistant', $2, $1, NULL, $3))
  ${summaryKept ? '' : `, summary AS (
    INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at) VALUES ($4, 'main', 2, $3, $3)
    ON CONFLICT (key) DO UPDATE SET messages = session_summaries.messages + 2, last_at = GREATEST(session_summaries.last_at, EXCLUDED.last_at))`}
  SELECT (SELECT count(*) FROM finished) AS finished, (SELECT count(*) FROM herald_enqueue_event('main', $6, ${MAX_PENDING}, $3)) AS queued`,
});

export function pgRunExecutor(
  pool: pg.Pool,
  commit: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
  options: { heraldSchema: boolean },
): PgRunExecutor {
  const complete = completion(options.heraldSchema);
  const CLAIM = claim(options.heraldSchema);
  // herald's batching (src/store/postgres/completion-batch.ts): the completions asked for while a
  // batch is on its way go together as one work of the group commit, which then claims as many
  // next runs in the same transaction, one for each completer to execute next
  type Completing = { values: unknown[]; resolve: (next: QueuedRun | undefined) => void; reject: (error: unknown) => void };
  const gathered: Completing[] = [];
  let sending = false;
  const send = () => {
    if (sending || gathered.length === 0) return;
    sending = true;
    // what was asked for until the work runs goes in it; taken on a failure before it ran too, so no caller waits forever
    let taken: Completing[] | undefined;
    const take = () => (taken ??= gathered.splice(0));
    commit(async (client) => {
      const batch = take();
      for (const { values } of batch) await client.query({ ...complete, values });
      return (await client.query<QueuedRun>({ ...CLAIM, values: [Date.now(), batch.length] })).rows;
    }).then(
      (next) => take().forEach(({ resolve }, i) => resolve(next[i])),
      (error: unknown) => take().forEach(({ reject }) => reject(error)),
    ).finally(() => {
      sending = false;
      send();
    });
  };
  return claimLoop<QueuedRun>(
    HELD,
    async (room) => (await commit((client) => client.query<QueuedRun>({ ...CLAIM, values: [Date.now(), room] }))).rows,
    async (run) => {
      try {
        // read as herald's turn reads it for the prompt; the answer, as the embedded model's, does not depend on it
        await pool.query(HISTORY_READ, [run.session_key]);
        const reply = cannedAnswer(run.message);
        return await new Promise<QueuedRun | undefined>((resolve, reject) => {
          gathered.push({ values: [run.id, reply, Date.now(), run.session_key, run.message, `Hook ${run.name}: ${reply}`], resolve, reject });
          send();
        });
      } catch (error) {
        process.stderr.write(`baseline: run failed: ${(error as Error).message}\n`);
        return undefined;
      }
    },
  );
}
