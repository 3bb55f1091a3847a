import type { Statement } from 'better-sqlite3';
import type { SessionMessage, SessionsRepo } from '../port.js';
import type { GroupCommit } from './group-commit.js';
import { limitedStatements } from './limited-statements.js';
import type { SqliteDatabase } from './open-database.js';

interface Row {
  role: SessionMessage['role'];
  content: string;
  run_id: string | null;
  meta: string | null;
  created_at: number;
}

// OR FAIL: a failed write is undone whole by its group commit, no statement journal needed (group-commit.ts)
const COLUMNS = 'INSERT OR FAIL INTO session_messages (session_key, id, role, content, run_id, meta, created_at) VALUES';
const TUPLE = '(?, ?, ?, ?, ?, ?, ?)';
const metaText = (m: SessionMessage) => (m.meta ? JSON.stringify(m.meta) : null);

/**
 * Keeps a session's summary for messages just written: ONE write for a turn, where the row
 * trigger (dropped by migration 17) upserted once per message, rewriting the row and its
 * session_summaries_last entry each time. The rule is the trigger's, applied to the turn's first
 * message: on insert, agent_id is NULL for main, else the message's meta.agentId or its run's agent.
 * Run right after the INSERT, as part of the same group commit's work (atomic as a whole: group-commit.ts).
 */
function summaryKeeper(db: SqliteDatabase) {
  // the session is listed already (its run's insert listed it): an UPDATE, without the agent an
  // insert would look up (an upsert works out its VALUES, the run's agent included, before it finds the row)
  const update = db.prepare<[number, number, number, string]>(
    'UPDATE OR FAIL session_summaries SET messages = messages + ?, first_at = MIN(first_at, ?), last_at = MAX(last_at, ?) WHERE key = ?',
  );
  // the summary's row as the trigger's rule makes it, inserted under the conflict clause given
  const inserting = (conflict: 'FAIL' | 'IGNORE') =>
    db.prepare<[string, string, string | null, string | null, number, number, number]>(
      `INSERT OR ${conflict} INTO session_summaries (key, agent_id, messages, first_at, last_at)
       VALUES (?, CASE WHEN ? = 'main' THEN NULL ELSE COALESCE(json_extract(?, '$.agentId'), (SELECT agent_id FROM runs WHERE id = ?)) END, ?, ?, ?)`,
    );
  const insert = inserting('FAIL');
  // a session the caller says is new is inserted without the UPDATE that would miss first; IGNORE,
  // not FAIL: were it listed after all, the UPDATE below counts the messages in
  const insertNew = inserting('IGNORE');
  return (sessionKey: string, first: SessionMessage, firstMeta: string | null, count: number, firstAt: number, lastAt: number, fresh: boolean) => {
    if (fresh && insertNew.run(sessionKey, sessionKey, firstMeta, first.runId ?? null, count, firstAt, lastAt).changes === 1) return;
    if (update.run(count, firstAt, lastAt, sessionKey).changes === 0) insert.run(sessionKey, sessionKey, firstMeta, first.runId ?? null, count, firstAt, lastAt);
  };
}

/** a turn's messages in one INSERT (up to this many rows; a longer turn takes one INSERT per this many) */
const ROWS_PER_STATEMENT = 8;

/**
 * Appends a turn's messages with one multi-row INSERT and its summary with one write (not a
 * SAVEPOINT, an INSERT per row and a RELEASE): a group commit's work,
 * or part of one, atomic as that work is. The table is keyed by (session_key, id) (migration 51):
 * a turn's messages take its session's largest id + 1 on, in the order of the VALUES list.
 */
export function turnAppender(db: SqliteDatabase) {
  const statements: Statement<unknown[]>[] = [];
  const statement = (rows: number) => (statements[rows] ??= db.prepare(`${COLUMNS} ${Array(rows).fill(TUPLE).join(', ')}`));
  // one seek down the key, to the page the INSERT writes anyway (0 for a new session); asked of a
  // `fresh` session too, which the port lets turn out not to be new
  const lastId = db.prepare<[string], number>('SELECT COALESCE(MAX(id), 0) FROM session_messages WHERE session_key = ?').pluck();
  const summarise = summaryKeeper(db);
  // the rows of one INSERT: `messages` from `from`, at most ROWS_PER_STATEMENT, ids from `id` + 1; returns the first row's meta as written
  const insert = (sessionKey: string, messages: SessionMessage[], from: number, id: number): string | null => {
    const to = Math.min(messages.length, from + ROWS_PER_STATEMENT);
    const values: unknown[] = [];
    for (let i = from; i < to; i++) {
      const m = messages[i]!;
      values.push(sessionKey, id + 1 + i - from, m.role, m.content, m.runId ?? null, metaText(m), m.createdAt);
    }
    statement(to - from).run(...values);
    return values[5] as string | null;
  };
  const summariseTurn = (sessionKey: string, messages: SessionMessage[], firstMeta: string | null, fresh: boolean) => {
    let firstAt = messages[0]!.createdAt;
    let lastAt = firstAt;
    for (const m of messages) {
      if (m.createdAt < firstAt) firstAt = m.createdAt;
      if (m.createdAt > lastAt) lastAt = m.createdAt;
    }
    summarise(sessionKey, messages[0]!, firstMeta, messages.length, firstAt, lastAt, fresh);
  };
  /** `fresh`: the session is new to the store (see SessionsRepo.appendMany) */
  return (sessionKey: string, messages: SessionMessage[], fresh = false) => {
    if (messages.length === 0) return;
    const last = lastId.get(sessionKey)!;
    const firstMeta = insert(sessionKey, messages, 0, last);
    for (let from = ROWS_PER_STATEMENT; from < messages.length; from += ROWS_PER_STATEMENT) insert(sessionKey, messages, from, last + from);
    summariseTurn(sessionKey, messages, firstMeta, fresh);
  };
}

export function sqliteSessionsRepo(db: SqliteDatabase, commits: GroupCommit): SessionsRepo {
  const appendMany = turnAppender(db);
  // the newest `limit` messages, newest first (turned round here: an outer ORDER BY would cost a sort per read)
  const newest = limitedStatements<[string], Row>(
    db,
    (limit) => `SELECT role, content, run_id, meta, created_at FROM session_messages WHERE session_key = ? ORDER BY id DESC LIMIT ${limit}`,
  );
  const exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM session_messages WHERE session_key = ? LIMIT 1');

  return {
    // the group commit's own promise, not an async function's around it (a turn's transcript is on every chat completion's path)
    append(sessionKey, m) {
      return commits.run(() => appendMany(sessionKey, [m]));
    },
    appendMany(sessionKey, messages, fresh) {
      return messages.length ? commits.run(() => appendMany(sessionKey, messages, fresh)) : Promise.resolve();
    },
    async messages(sessionKey, limit = 1000) {
      // oldest first
      return newest(limit)
        .all(sessionKey)
        .reverse()
        .map((r) => ({
          role: r.role,
          content: r.content,
          runId: r.run_id,
          meta: r.meta ? (JSON.parse(r.meta) as Record<string, unknown>) : null,
          createdAt: r.created_at,
        }));
    },
    async exists(sessionKey) {
      return exists.get(sessionKey) !== undefined;
    },
  };
}
