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

/** Appends one message to a session; synchronous, so it can join another transaction. */
export function messageAppender(db: SqliteDatabase) {
  const insert = db.prepare<[string, string, string, string | null, string | null, number]>(
    'INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return (sessionKey: string, m: SessionMessage) =>
    insert.run(sessionKey, m.role, m.content, m.runId ?? null, m.meta ? JSON.stringify(m.meta) : null, m.createdAt);
}

/** a turn's messages in one INSERT (up to this many rows; more go through a savepoint, row by row) */
const ROWS_PER_STATEMENT = 8;

/**
 * Appends a turn's messages with one multi-row INSERT: atomic by itself, so inside the group
 * commit it needs no savepoint of its own (a SAVEPOINT, an INSERT per row and a RELEASE were
 * most of a chat completion's write). Row ids follow the order of the VALUES list.
 */
export function turnAppender(db: SqliteDatabase) {
  const statements: Statement<unknown[]>[] = [];
  const statement = (rows: number) =>
    (statements[rows] ??= db.prepare(
      `INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`,
    ));
  const append = messageAppender(db);
  const each = db.transaction((sessionKey: string, messages: SessionMessage[]) => {
    for (const m of messages) append(sessionKey, m);
  });
  return (sessionKey: string, messages: SessionMessage[]) => {
    if (messages.length === 0) return;
    if (messages.length > ROWS_PER_STATEMENT) return void each(sessionKey, messages);
    const values: unknown[] = [];
    for (const m of messages) values.push(sessionKey, m.role, m.content, m.runId ?? null, m.meta ? JSON.stringify(m.meta) : null, m.createdAt);
    statement(messages.length).run(...values);
  };
}

export function sqliteSessionsRepo(db: SqliteDatabase, commits: GroupCommit): SessionsRepo {
  const append = messageAppender(db);
  const appendMany = turnAppender(db);
  // the newest `limit` messages, newest first (turned round here: an outer ORDER BY cost a sort per read)
  const newest = limitedStatements<[string], Row>(
    db,
    (limit) => `SELECT role, content, run_id, meta, created_at FROM session_messages WHERE session_key = ? ORDER BY id DESC LIMIT ${limit}`,
  );
  const exists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM session_messages WHERE session_key = ? LIMIT 1');

  return {
    async append(sessionKey, m) {
      await commits.run(() => append(sessionKey, m));
    },
    async appendMany(sessionKey, messages) {
      if (messages.length) await commits.run(() => appendMany(sessionKey, messages));
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
