import { sqliteUsageRepo } from './usage-repo.js';
import { sqliteAlertsRepo } from './alerts-repo.js';
import { LocalSignals } from '../local-signals.js';
import type { Store, StoreOpenOptions as OpenOptions } from '../port.js';
import { sqliteBrowseRepo } from './browse-repo.js';
import { sqliteDeliveriesRepo } from './deliveries-repo.js';
import { eventAppender, sqliteEventsRepo } from './events-repo.js';
import { GroupCommit } from './group-commit.js';
import { sqliteIdempotencyRepo } from './idempotency-repo.js';
import { sqliteApiKeysRepo } from './api-keys-repo.js';
import { sqliteQuestionsRepo } from './questions-repo.js';
import { sqliteFilesRepo } from './files-repo.js';
import { sqliteKnowledgeRepo } from './knowledge-repo.js';
import { sqliteVectorStoresRepo } from './vector-stores-repo.js';
import { sqliteProbe } from './sqlite-probe.js';
import { openDatabase, openDatabaseReadOnly, type SqliteDatabase } from './open-database.js';
import { sqliteReceiptsRepo } from './receipts-repo.js';
import { sqliteRunsRepo } from './runs-repo.js';
import { takeServingLock } from './serving-lock.js';
import { sqliteSessionsRepo } from './sessions-repo.js';
import { sqliteStateRepo } from './state-repo.js';
import { sqliteToolCallsRepo } from './tool-calls-repo.js';
import { sqliteSchedulesRepo } from './schedules-repo.js';

export interface SqliteStore extends Store {
  /** the raw database: for this adapter's own tests only; nothing above src/store/ sees it (it gets a `Store`) */
  db: SqliteDatabase;
}

export function openSqliteStore(file: string, options: OpenOptions = {}): SqliteStore {
  const db = options.readOnly ? openDatabaseReadOnly(file) : openDatabase(file);
  const commits = new GroupCommit(db);
  // one per database: what it holds of each session's queue is shared by every writer of events
  const appender = eventAppender(db, commits);
  let serving: { release(): void } | undefined;
  return {
    db,
    events: sqliteEventsRepo(db, commits, appender),
    runs: sqliteRunsRepo(db, commits, appender),
    sessions: sqliteSessionsRepo(db, commits),
    state: sqliteStateRepo(db, commits),
    deliveries: sqliteDeliveriesRepo(db),
    idempotency: sqliteIdempotencyRepo(db, commits, appender),
    // one process per database file: a signal never needs to leave it
    signals: new LocalSignals(),
    knowledge: sqliteKnowledgeRepo(db, commits.othersCommits),
    apiKeys: sqliteApiKeysRepo(db),
    questions: sqliteQuestionsRepo(db),
    files: sqliteFilesRepo(db),
    vectorStores: sqliteVectorStoresRepo(db),
    probe: sqliteProbe(db),
    receipts: sqliteReceiptsRepo(db, commits),
    alerts: sqliteAlertsRepo(db),
    usage: sqliteUsageRepo(db, commits),
    browse: sqliteBrowseRepo(db),
    toolCalls: sqliteToolCallsRepo(db, commits),
    schedules: sqliteSchedulesRepo(db, commits, appender),
    async serveAlone() {
      // an in-memory database is this handle's alone
      if (file === ':memory:') return true;
      serving ??= takeServingLock(file);
      return serving !== undefined;
    },
    afterCommit: (write, committed) => commits.afterCommit(write, committed),
    async close() {
      serving?.release();
      serving = undefined;
      if (!db.open) return;
      commits.flush();
      db.close();
    },
  };
}
