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
const COLUMNS = 'INSERT OR FAIL INTO session_messages (session_key, id, role, content, run_id, meta, created_at, agent_id, messages, last_at) VALUES';
const TUPLE = '(?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)';
/**
 * A session's summary is its row of this id (migration 54), past every message's: the last of the
 * session's range, so the messages a turn adds go in beside it. It holds the messages' count and
 * span (created_at is its first_at), and the agent as the rule (once a trigger's) names it from
 * the session's first message: none for main, else the message's meta.agentId or its run's agent.
 */
export const SUMMARY_ID = Number.MAX_SAFE_INTEGER;
const SUMMARY = `(?, ${SUMMARY_ID}, '', '', NULL, NULL, ?, CASE WHEN ? = 'main' THEN NULL ELSE COALESCE(?, json_extract(?, '$.agentId'), (SELECT agent_id FROM runs WHERE id = ?)) END, ?, ?)`;
const metaText = (m: SessionMessage) => (m.meta ? JSON.stringify(m.meta) : null);
/**
 * the first message's meta.agentId as json_extract reads it from its text, when it is a string
 * (a chat's and a response's is): bound as it is, SQLite neither parses the JSON nor reads the run;
 * null leaves the rule to the statement's own json_extract
 */
const agentOfMeta = ({ meta }: SessionMessage) => {
  const agentId = meta && Object.hasOwn(meta, 'agentId') ? meta.agentId : undefined;
  return typeof agentId === 'string' ? agentId : null;
};

/** a turn's messages in one INSERT (up to this many rows; a longer turn takes one INSERT per this many) */
const ROWS_PER_STATEMENT = 8;

/** the PRIMARY KEY conflict of a summary inserted for a session that has one */
const isTaken = (error: unknown) => (error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY';

/**
 * Appends a turn's messages, and keeps its session's summary, in the fewest statements: a
 * group commit's work, or part of one, atomic as that work is. The table is keyed by
 * (session_key, id) (migration 51): a turn's messages take its session's largest id + 1 on, in
 * the order of the VALUES list; a new session's first INSERT writes its first messages and its
 * summary together, on one page, and a later turn's go in before the summary, on its page. The
 * summary is written once per turn, not once per message.
 */
export function turnAppender(db: SqliteDatabase) {
  const statements: Statement<unknown[]>[] = [];
  const opening: Statement<unknown[]>[] = [];
  const tuples = (rows: number) => Array(rows).fill(TUPLE).join(', ');
  const statement = (rows: number) => (statements[rows] ??= db.prepare(`${COLUMNS} ${tuples(rows)}`));
  // a new session's first `rows` messages, then its summary: in the order of their keys, as an
  // append at the table's end writes fewest pages (the summary first costs more page splits)
  const openingStatement = (rows: number) => (opening[rows] ??= db.prepare(`${COLUMNS} ${tuples(rows)}, ${SUMMARY}`));
  // after an INSERT OR FAIL stopped at a conflict: the rows it had written (kept, as FAIL keeps them)
  const writtenBefore = db.prepare<[], number>('SELECT changes()').pluck();
  const removeFirst = db.prepare<[string, number]>('DELETE FROM session_messages WHERE session_key = ? AND id BETWEEN 1 AND ?');
  // one seek down the key, to the page the INSERT writes anyway: 0 for a session with no message, undefined for one not stored at all
  const lastId = db.prepare<[string], number>(`SELECT id FROM session_messages WHERE session_key = ? ORDER BY id DESC LIMIT 2`).pluck();
  const lastMessage = (sessionKey: string): number | undefined => {
    const [last, before] = lastId.all(sessionKey);
    return last === undefined ? undefined : last !== SUMMARY_ID ? last : (before ?? 0);
  };
  // the summary of a session stored already (its run's insert lists it, or an earlier turn)
  const update = db.prepare<[number, number, number, string]>(
    `UPDATE OR FAIL session_messages SET messages = messages + ?, created_at = MIN(created_at, ?), last_at = MAX(last_at, ?) WHERE session_key = ? AND id = ${SUMMARY_ID}`,
  );
  // a summary alone: for a session whose messages were stored without one (none are, since migration 15)
  const insertSummary = db.prepare(`${COLUMNS} ${SUMMARY}`);
  const span = (messages: SessionMessage[]) => {
    let firstAt = messages[0]!.createdAt;
    let lastAt = firstAt;
    for (const m of messages) {
      if (m.createdAt < firstAt) firstAt = m.createdAt;
      if (m.createdAt > lastAt) lastAt = m.createdAt;
    }
    return [firstAt, lastAt] as const;
  };
  const summaryValues = (sessionKey: string, messages: SessionMessage[], firstMeta: string | null): unknown[] => {
    const [firstAt, lastAt] = span(messages);
    const agentId = agentOfMeta(messages[0]!);
    return [sessionKey, firstAt, sessionKey, agentId, agentId === null ? firstMeta : null, messages[0]!.runId ?? null, messages.length, lastAt];
  };
  // the values of `messages` from `from`, at most ROWS_PER_STATEMENT, ids from `id` + 1, after `values`; returns how many
  const push = (values: unknown[], sessionKey: string, messages: SessionMessage[], from: number, id: number, firstMeta: string | null): number => {
    const to = Math.min(messages.length, from + ROWS_PER_STATEMENT);
    for (let i = from; i < to; i++) {
      const m = messages[i]!;
      values.push(sessionKey, id + 1 + i - from, m.role, m.content, m.runId ?? null, i === 0 ? firstMeta : metaText(m), m.createdAt);
    }
    return to - from;
  };
  // the rest of a turn's messages, from ROWS_PER_STATEMENT on, ids after `last`
  const insertRest = (sessionKey: string, messages: SessionMessage[], last: number, firstMeta: string | null) => {
    for (let from = ROWS_PER_STATEMENT; from < messages.length; from += ROWS_PER_STATEMENT) {
      const values: unknown[] = [];
      statement(push(values, sessionKey, messages, from, last + from, firstMeta)).run(...values);
    }
  };
  /**
   * a session with no message stored: its first messages, with its summary in the same INSERT
   * when it has none (`listed` false); false, with nothing written, when a message is stored
   * after all (a caller's `fresh` or `listed` may be wrong)
   */
  const open = (sessionKey: string, messages: SessionMessage[], firstMeta: string | null, listed = false): boolean => {
    const values: unknown[] = [];
    const rows = push(values, sessionKey, messages, 0, 0, firstMeta);
    if (!listed) values.push(...summaryValues(sessionKey, messages, firstMeta));
    try {
      (listed ? statement : openingStatement)(rows).run(...values);
    } catch (error) {
      if (!isTaken(error)) throw error;
      // OR FAIL kept the rows written before the one taken: messages of ids 1 on, none of them stored before
      const written = writtenBefore.get()!;
      if (written > 0) removeFirst.run(sessionKey, written);
      return false;
    }
    insertRest(sessionKey, messages, 0, firstMeta);
    return true;
  };
  // the summary of a session stored already, kept with the messages just written; inserted for one that has none after all
  const summarise = (sessionKey: string, messages: SessionMessage[], firstMeta: string | null) => {
    const [firstAt, lastAt] = span(messages);
    if (update.run(messages.length, firstAt, lastAt, sessionKey).changes === 0) insertSummary.run(...summaryValues(sessionKey, messages, firstMeta));
  };
  /**
   * `fresh`: the session is new to the store (see SessionsRepo.appendMany), so it is opened
   * without reading its last id; `listed`: at most its summary is stored (its run's insert listed it:
   * RunCompletion.opensSession), so its messages take ids from 1 without that read either. The port lets either turn out wrong,
   * and then the session is appended to as any other
   */
  return (sessionKey: string, messages: SessionMessage[], fresh = false, listed = false) => {
    if (messages.length === 0) return;
    const firstMeta = metaText(messages[0]!);
    if (fresh && open(sessionKey, messages, firstMeta)) return;
    if (listed && open(sessionKey, messages, firstMeta, true)) return summarise(sessionKey, messages, firstMeta);
    const last = lastMessage(sessionKey);
    if (last === undefined && open(sessionKey, messages, firstMeta)) return;
    const values: unknown[] = [];
    statement(push(values, sessionKey, messages, 0, last ?? 0, firstMeta)).run(...values);
    insertRest(sessionKey, messages, last ?? 0, firstMeta);
    summarise(sessionKey, messages, firstMeta);
  };
}

export function sqliteSessionsRepo(db: SqliteDatabase, commits: GroupCommit): SessionsRepo {
  const appendMany = turnAppender(db);
  // the newest `limit` messages, newest first (turned round here: an outer ORDER BY would cost a sort per read)
  const newest = limitedStatements<[string], Row>(
    db,
    (limit) => `SELECT role, content, run_id, meta, created_at FROM session_messages WHERE session_key = ? AND id < ${SUMMARY_ID} ORDER BY id DESC LIMIT ${limit}`,
  );
  const exists = db.prepare<[string], { one: number }>(`SELECT 1 AS one FROM session_messages WHERE session_key = ? AND id < ${SUMMARY_ID} LIMIT 1`);

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
