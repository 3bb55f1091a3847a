/**
 * Versioned migrations, applied in order inside one transaction each; `user_version` records
 * the last applied. Never edit a migration that has shipped: add the next one.
 * Each area of herald owns the migrations it appends (deliveries, knowledge, keys, ...).
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'core: events, runs, session messages, state',
    sql: `
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX events_session_status ON events (session, status, id);

      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        name TEXT NOT NULL,
        session_key TEXT NOT NULL,
        message TEXT NOT NULL,
        action TEXT NOT NULL,
        reply TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER
      );
      CREATE INDEX runs_unfinished ON runs (status, created_at) WHERE status IN ('queued', 'running');

      CREATE TABLE session_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_key TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        run_id TEXT,
        meta TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX session_messages_key ON session_messages (session_key, id);

      CREATE TABLE state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
];
