import type { Database } from 'better-sqlite3';
import { hasColumn } from './store-columns.js';

/** the id of a session's summary row (SQLite migration 54, sessions-repo.ts SUMMARY_ID) */
const SUMMARY_ID = '9007199254740991';

/**
 * The session rows herald's sessions repo would have written for the seeded runs, by raw INSERTs
 * (the port would take minutes): run i's session `hook:seed-<i>` has its turn (user, then
 * assistant 500 ms later), and one conversation `chat:conv_<i>` per 200 runs has one message of
 * agent `sales`, run i at t0 + i s. `n` is the bench's recursive CTE of i = 1..? (its one parameter).
 *
 * The template store has the schema of the oldest checkout measured (BENCH_BASELINE_ROOT), so
 * this writes what that schema holds:
 * - since migration 51 the table is keyed by (session_key, id), WITHOUT ROWID: a session's
 *   messages take ids 1..n, and go in in key order (an append at the B-tree's end);
 * - since migration 54 a session's summary is the row of id 2^53 - 1 of its own range
 *   (session_summaries is a view of those rows): created_at its first_at, agent_id, messages
 *   and last_at set on it alone; before, a row of the session_summaries table;
 * - before migration 17 a trigger kept the summaries as the messages went in: nothing to add.
 */
export function seedSessions(db: Database, n: string, rows: number, t0: number): void {
  const keyed = (db.prepare('PRAGMA table_info(session_messages)').all() as { name: string; pk: number }[]).some((c) => c.name === 'session_key' && c.pk > 0);
  // the id column only where it is a message's number in its session (before 51, a rowid the table gives)
  const [idColumn, id] = keyed ? [', id', ', seq'] : ['', ''];
  const insert = `INSERT INTO session_messages (session_key${idColumn}, role, content, run_id, meta, created_at)`;
  // 'chat:…' sorts before 'hook:…': the conversations first keeps the whole seed in key order
  db.prepare(
    `${n} ${insert}
     SELECT 'chat:conv_' || i${keyed ? ', 1' : ''}, 'user', 'hello', NULL, json_object('agentId', 'sales'), ${t0} + i * 1000 * 200 FROM n ORDER BY 1`,
  ).run(Math.floor(rows / 200));
  db.prepare(
    `${n} ${insert}
     SELECT key${id}, role, content, run_id, NULL, created_at FROM (
       SELECT 'hook:seed-' || i AS key, 1 AS seq, 'user' AS role, 'seeded' AS content, 'seed-' || i AS run_id, ${t0} + i * 1000 AS created_at FROM n
       UNION ALL SELECT 'hook:seed-' || i, 2, 'assistant', 'ok', 'seed-' || i, ${t0} + i * 1000 + 500 FROM n)
     ORDER BY key, seq`,
  ).run(rows);
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'session_messages_summarised'").get()) return;
  // each session's count and span, and its agent as the repo names it from the first message:
  // none for main, else the message's meta.agentId or its run's agent. A run's insert has listed
  // its session already (the runs_list_session trigger, messages 0): its summary is updated as a
  // turn's append updates it
  const summaries = `
    SELECT s.key, s.messages, s.first_at, s.last_at,
      CASE WHEN s.key = 'main' THEN NULL ELSE COALESCE(json_extract(m.meta, '$.agentId'), r.agent_id) END AS agent_id
    FROM (SELECT session_key AS key, COUNT(*) AS messages, MIN(created_at) AS first_at, MAX(created_at) AS last_at, MIN(id) AS first_id
          FROM session_messages WHERE id <> ${SUMMARY_ID} GROUP BY session_key) s
    JOIN session_messages m ON m.session_key = s.key AND m.id = s.first_id
    LEFT JOIN runs r ON r.id = m.run_id`;
  if (hasColumn(db, 'session_messages', 'last_at')) {
    db.exec(`INSERT INTO session_messages (session_key, id, role, content, run_id, meta, created_at, agent_id, messages, last_at)
      SELECT key, ${SUMMARY_ID}, '', '', NULL, NULL, first_at, agent_id, messages, last_at FROM (${summaries}) WHERE true ORDER BY key
      ON CONFLICT (session_key, id) DO UPDATE SET messages = excluded.messages, created_at = MIN(created_at, excluded.created_at), last_at = MAX(last_at, excluded.last_at)`);
  } else {
    db.exec(`INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at)
      SELECT key, agent_id, messages, first_at, last_at FROM (${summaries}) WHERE true ORDER BY key
      ON CONFLICT (key) DO UPDATE SET messages = excluded.messages, first_at = MIN(first_at, excluded.first_at), last_at = MAX(last_at, excluded.last_at)`);
  }
}
