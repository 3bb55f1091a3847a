import { LocalSignals } from '../local-signals.js';
import type { Store } from '../port.js';
import { sqliteDeliveriesRepo } from './deliveries-repo.js';
import { sqliteEventsRepo } from './events-repo.js';
import { GroupCommit } from './group-commit.js';
import { sqliteIdempotencyRepo } from './idempotency-repo.js';
import { openDatabase, type SqliteDatabase } from './open-database.js';
import { sqliteRunsRepo } from './runs-repo.js';
import { sqliteSessionsRepo } from './sessions-repo.js';
import { sqliteStateRepo } from './state-repo.js';

export interface SqliteStore extends Store {
  /** the raw database, for adapters of later areas (knowledge index, outbox) living in this same file */
  db: SqliteDatabase;
}

export function openSqliteStore(file: string): SqliteStore {
  const db = openDatabase(file);
  const commits = new GroupCommit(db);
  return {
    db,
    events: sqliteEventsRepo(db, commits),
    runs: sqliteRunsRepo(db, commits),
    sessions: sqliteSessionsRepo(db, commits),
    state: sqliteStateRepo(db),
    deliveries: sqliteDeliveriesRepo(db),
    idempotency: sqliteIdempotencyRepo(db),
    // one process per database file: a signal never needs to leave it
    signals: new LocalSignals(),
    async close() {
      if (!db.open) return;
      commits.flush();
      db.close();
    },
  };
}
