import { postgresUsageRepo } from './usage-repo.js';
import type pg from 'pg';
import { postgresAlertsRepo } from './alerts-repo.js';
import { postgresSchedulesRepo } from './schedules-repo.js';
import { ConfigError } from '../../errors.js';
import type { Store, StoreOpenOptions } from '../port.js';
import type { StoreProbe } from '../contracts/store-probe.js';
import { postgresBrowseRepo } from './browse-repo.js';
import { postgresDeliveriesRepo } from './deliveries-repo.js';
import { postgresEventsRepo } from './events-repo.js';
import { postgresIdempotencyRepo } from './idempotency-repo.js';
import { PgGroupCommit } from './group-commit.js';
import { checkVersion, migrate } from './migrate.js';
import { checkSchemaName, connectionConfig, createPool, DEFAULT_SCHEMA, type PostgresOptions } from './pg-pool.js';
import { PgSignals } from './pg-signals.js';
import { postgresApiKeysRepo } from './api-keys-repo.js';
import { postgresQuestionsRepo } from './questions-repo.js';
import { postgresFilesRepo } from './files-repo.js';
import { postgresKnowledgeRepo } from './knowledge-repo.js';
import { postgresVectorStoresRepo } from './vector-stores-repo.js';
import { postgresProbe } from './postgres-probe.js';
import { postgresReceiptsRepo } from './receipts-repo.js';
import { postgresToolCallsRepo } from './tool-calls-repo.js';
import { postgresRunsRepo } from './runs-repo.js';
import { postgresSessionsRepo } from './sessions-repo.js';
import { postgresStateRepo } from './state-repo.js';

export type { PostgresOptions } from './pg-pool.js';

export interface PostgresStore extends Store {
  probe: StoreProbe;
  /** the schema this deployment's tables live in */
  schema: string;
  pool: pg.Pool;
}

/** the URL without its password, for a message a person reads */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable url)';
  }
}

/**
 * Opens a pool on the database and migrates the schema. The database must answer at start:
 * a replica that cannot reach it refuses to start (its supervisor retries), naming the key.
 * Later losses of the connection are survived: requests get 503 and the pool reconnects.
 */
export async function openPostgresStore(options: PostgresOptions, open: StoreOpenOptions = {}): Promise<PostgresStore> {
  const schema = checkSchemaName(options.schema ?? DEFAULT_SCHEMA);
  const pool = createPool({ ...options, schema, readOnly: open.readOnly });
  try {
    await (open.readOnly ? checkVersion(pool, schema) : migrate(pool, schema));
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`storage.postgres: cannot open ${redact(options.url)} (schema ${schema}): ${(error as Error).message}`]);
  }
  const signals = new PgSignals(pool, connectionConfig({ ...options, schema }), schema);
  // a read-only reader listens to nothing: it takes no work
  if (!open.readOnly) await signals.start();
  const commits = new PgGroupCommit(pool);
  // one completions transaction at a time: what finishes meanwhile shares the next one's flush
  const completions = new PgGroupCommit(pool, 1);
  const runs = postgresRunsRepo(pool, completions);
  const receipts = postgresReceiptsRepo(pool);
  const usage = postgresUsageRepo(pool);
  const events = postgresEventsRepo(pool);
  let closed = false;
  return {
    schema,
    pool,
    probe: postgresProbe(pool),
    events,
    runs,
    sessions: postgresSessionsRepo(pool),
    state: postgresStateRepo(pool),
    deliveries: postgresDeliveriesRepo(pool),
    idempotency: postgresIdempotencyRepo(pool, commits),
    signals,
    knowledge: postgresKnowledgeRepo(pool),
    apiKeys: postgresApiKeysRepo(pool),
    questions: postgresQuestionsRepo(pool),
    files: postgresFilesRepo(pool),
    vectorStores: postgresVectorStoresRepo(pool),
    receipts,
    alerts: postgresAlertsRepo(pool),
    usage,
    browse: postgresBrowseRepo(pool),
    toolCalls: postgresToolCallsRepo(pool),
    schedules: postgresSchedulesRepo(pool, commits),
    // replicas share the database: leases decide what a dead one left
    async serveAlone() {
      return false;
    },
    async close() {
      if (closed) return;
      closed = true;
      // runs' first: a completion waiting out its gathering pause joins the completions' group commit before it drains
      await Promise.all([runs.drain(), commits.drain(), completions.drain(), receipts.drain(), usage.drain(), events.drain()]);
      await signals.close();
      await pool.end();
    },
  };
}
