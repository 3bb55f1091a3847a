import type pg from 'pg';
import type { SessionMessage, SessionsRepo } from '../port.js';
import { query, type Queryable } from './pg-pool.js';

interface Row {
  role: SessionMessage['role'];
  content: string;
  run_id: string | null;
  meta: Record<string, unknown> | null;
  created_at: number;
}

/** appends messages in order, in one statement (ids follow the order of the VALUES list) */
export async function appendMessages(db: Queryable, sessionKey: string, messages: SessionMessage[]): Promise<void> {
  if (!messages.length) return;
  const values: unknown[] = [];
  const tuples = messages.map((m, i) => {
    values.push(sessionKey, m.role, m.content, m.runId ?? null, m.meta ? JSON.stringify(m.meta) : null, m.createdAt);
    const n = i * 6;
    return `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}::jsonb, $${n + 6})`;
  });
  await query(db, `INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at) VALUES ${tuples.join(', ')}`, values);
}

export function postgresSessionsRepo(pool: pg.Pool): SessionsRepo {
  return {
    append(sessionKey, m) {
      return appendMessages(pool, sessionKey, [m]);
    },
    // one INSERT of every row: atomic by itself, no transaction needed
    appendMany(sessionKey, messages) {
      return appendMessages(pool, sessionKey, messages);
    },
    async messages(sessionKey, limit = 1000) {
      // the newest `limit` messages, newest first, returned oldest first (turned round here: an
      // outer ORDER BY made the server plan a subquery and sort, for every run's history read)
      const { rows } = await query<Row>(
        pool,
        'SELECT role, content, run_id, meta, created_at FROM session_messages WHERE session_key = $1 ORDER BY id DESC LIMIT $2',
        [sessionKey, limit],
      );
      return rows.reverse().map((r) => ({ role: r.role, content: r.content, runId: r.run_id, meta: r.meta, createdAt: r.created_at }));
    },
    async exists(sessionKey) {
      const { rows } = await query(pool, 'SELECT 1 FROM session_messages WHERE session_key = $1 LIMIT 1', [sessionKey]);
      return rows.length > 0;
    },
  };
}
