import type { Database, Statement } from 'better-sqlite3';
import { cannedAnswer } from './baseline-answer.js';
import { claimLoop } from './baseline-claim-loop.js';
import type { BaselineCommit } from './baseline-group-commit.js';

/**
 * The baseline's run executor, for `/hooks/agent-executed`: what a raw server would do to execute
 * the agent runs it accepted, with the same durable work as herald's run queue and an answer as
 * cheap as herald's embedded model's. It claims queued runs in batches (16 held, the claim an
 * UPDATE of their status), reads each session's newest messages (the history), answers (herald's
 * embedded answer, word for word), and completes the run in one group-commit work: the run's status
 * and reply, the turn's two messages in one INSERT, the session's summary upserted, the run's
 * summary posted to the main session (the same duplicate skip and pending cap as a wake). The runs
 * a group commit completes claim as many next runs in that same transaction, once per group, as
 * herald's run queue does (completeAndClaimNext): both pay one commit per batch of runs, where
 * claiming apart paid a claim's commit and a completion's, and so left more of its backlog for
 * after the load. It keeps none of herald's safety wrapping, leases, timeouts, chains or order
 * within a session (the bench gives each run its own): this is the floor an integrator's own glue
 * would stand on, so herald's figure against it is the cost of what herald does beyond the durable
 * work.
 *
 * Self-contained (no herald imports), like the rest of the baseline.
 */
export interface RunExecutor {
  /** a run was committed queued: execute it (and whatever else is queued) */
  poke(): void;
}

/** runs claimed at once (herald: maxConcurrent 4 × claim-ahead 4 while turns are quick) */
const HELD = 16;
const HISTORY = 50;
const MAX_PENDING = 20;

/**
 * The transcript's tables of the same-records baseline: a message per row and a summary per
 * session, each with the one index its reads need. In a file herald's migrations made (the
 * herald-schema baseline) herald's own are there instead: a session's summary is the row of id
 * SUMMARY_ID among its messages (migration 54), and session_summaries a view of those rows.
 */
export const RUN_TABLES = `
  CREATE TABLE IF NOT EXISTS session_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_key TEXT NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
    run_id TEXT, meta TEXT, created_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS session_messages_key ON session_messages (session_key, id);
  CREATE TABLE IF NOT EXISTS session_summaries (
    key TEXT PRIMARY KEY, agent_id TEXT, messages INTEGER NOT NULL, first_at INTEGER NOT NULL, last_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS session_summaries_last ON session_summaries (last_at);
`;

/** herald's SUMMARY_ID (src/store/sqlite/sessions-repo.ts), written out: the baseline imports nothing of herald's */
const SUMMARY_ID = Number.MAX_SAFE_INTEGER;

/** whether the file is herald's (its session summaries a view of the messages' table) */
export const inHeraldLayout = (db: Database): boolean =>
  db.prepare<[], string>("SELECT type FROM sqlite_master WHERE name = 'session_summaries'").pluck().get() === 'view';

interface QueuedRun {
  rowid: number;
  id: string;
  name: string;
  session_key: string;
  message: string;
}

export function runExecutor(
  db: Database,
  commit: BaselineCommit,
  enqueueEvent: (session: string, text: string, maxPending: number) => unknown,
): RunExecutor {
  const queued = db.prepare<[], { rowid: number }>(
    // both conditions: the same-records baseline's runs_ready names the status, herald's (the herald-schema baseline's) finished_at
    `SELECT rowid FROM runs INDEXED BY runs_ready WHERE waiting = 0 AND status IN ('queued', 'running') AND finished_at IS NULL AND status = 'queued' ORDER BY rowid LIMIT ${HELD}`,
  );
  // the claim as herald's (runs-repo.ts): one UPDATE of the rowids, then one SELECT of their records,
  // not an UPDATE ... RETURNING (which keeps the rows it returns in a temporary B-tree first)
  const claimStatements: { update: Statement<unknown[]>; read: Statement<unknown[], QueuedRun> }[] = [];
  const claim = (count: number) => {
    const placeholders = Array(count).fill('?').join(', ');
    return (claimStatements[count] ??= {
      update: db.prepare<unknown[]>(`UPDATE OR FAIL runs SET status = 'running', started_at = ? WHERE rowid IN (${placeholders})`),
      read: db.prepare<unknown[], QueuedRun>(`SELECT rowid, id, name, session_key, message FROM runs WHERE rowid IN (${placeholders})`),
    });
  };
  const heraldLayout = inHeraldLayout(db);
  // the newest messages, newest first: the first one's id is the session's last (0 for none)
  const history = db.prepare<[string], { id: number; role: string; content: string }>(
    heraldLayout
      ? `SELECT id, role, content FROM session_messages WHERE session_key = ? AND id < ${SUMMARY_ID} ORDER BY id DESC LIMIT ${HISTORY}`
      : `SELECT id, role, content FROM session_messages WHERE session_key = ? ORDER BY id DESC LIMIT ${HISTORY}`,
  );
  const finish = db.prepare("UPDATE OR FAIL runs SET status = 'succeeded', reply = ?, finished_at = ? WHERE id = ?");
  const appendTurn = heraldLayout
    ? db.prepare<unknown[]>(
        'INSERT OR FAIL INTO session_messages (session_key, id, role, content, run_id, meta, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?), (?, ?, ?, ?, ?, NULL, ?)',
      )
    : db.prepare<unknown[]>(
        'INSERT OR FAIL INTO session_messages (session_key, role, content, run_id, meta, created_at) VALUES (?, ?, ?, ?, NULL, ?), (?, ?, ?, ?, NULL, ?)',
      );
  const summarise = db.prepare(
    heraldLayout
      ? `INSERT OR FAIL INTO session_messages (session_key, id, role, content, created_at, agent_id, messages, last_at) VALUES (?, ${SUMMARY_ID}, '', '', ?, 'main', 2, ?)
         ON CONFLICT (session_key, id) DO UPDATE SET messages = messages + 2, last_at = MAX(last_at, excluded.last_at)`
      : `INSERT OR FAIL INTO session_summaries (key, agent_id, messages, first_at, last_at) VALUES (?, 'main', 2, ?, ?)
         ON CONFLICT (key) DO UPDATE SET messages = messages + 2, last_at = MAX(last_at, excluded.last_at)`,
  );
  const appendValues = (run: QueuedRun, reply: string, lastId: number, now: number): unknown[] =>
    heraldLayout
      ? [run.session_key, lastId + 1, 'user', run.message, run.id, now, run.session_key, lastId + 2, 'assistant', reply, run.id, now]
      : [run.session_key, 'user', run.message, run.id, now, run.session_key, 'assistant', reply, run.id, now];

  const complete = (run: QueuedRun, reply: string, lastId: number) => {
    const now = Date.now();
    finish.run(reply, now, run.id);
    appendTurn.run(...appendValues(run, reply, lastId, now));
    summarise.run(run.session_key, now, now);
    enqueueEvent('main', `Hook ${run.name}: ${reply}`, MAX_PENDING);
  };

  // herald's batching (completeAndClaimNext): the runs completed in one group commit claim as many
  // next runs in the same transaction, once per group after all its completions, each completer
  // executing the one it was given
  let places: { claimed?: QueuedRun }[] = [];
  let placesOf = -1;
  const wanted = () => {
    if (placesOf !== commit.generation) places = [];
    placesOf = commit.generation;
    return places;
  };
  const claimSome = (room: number) => {
    const ids = queued.all().slice(0, room).map((r) => r.rowid);
    if (!ids.length) return [];
    const { update, read } = claim(ids.length);
    update.run(Date.now(), ...ids);
    return read.all(...ids);
  };
  const claimForCompleted = () => {
    const completed = wanted();
    places = [];
    claimSome(completed.length).forEach((run, i) => (completed[i]!.claimed = run));
  };

  return claimLoop<QueuedRun>(
    HELD,
    (room) => commit(() => claimSome(room)),
    async (run) => {
      // read as herald's turn reads it for the prompt; the answer, as the embedded model's, does not depend on it
      const lastId = history.all(run.session_key)[0]?.id ?? 0;
      const reply = cannedAnswer(run.message);
      const place: { claimed?: QueuedRun } = {};
      const completing = commit(() => {
        complete(run, reply, lastId);
        wanted().push(place);
      });
      commit.last(claimForCompleted);
      await completing;
      return place.claimed;
    },
  );
}
