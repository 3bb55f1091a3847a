import type { StoreProbe } from './port/store-probe.js';

/**
 * The storage port: what the rest of herald asks of a store, and the only door to the database.
 * `openStore` (open-store.ts) picks the adapter: SQLite (`store/sqlite/`, the default) or
 * PostgreSQL (`store/postgres/`). Every method is async so a networked adapter fits behind the
 * same port; every atomicity rule written here holds on every adapter, and the contract suite
 * (test/store/*.case.ts) checks it on each. Times are epoch milliseconds.
 */
import type { BrowseRepo, ReceiptsRepo } from './port/operator-port.js';
import type { AlertsRepo } from './port/alerts-port.js';
import type { SchedulesRepo } from './port/schedules-port.js';
import type { FilesRepo, VectorStoresRepo } from './port/files-port.js';
import type { UsageRepo } from './port/usage-port.js';
import type { ToolCallsRepo } from './port/tool-calls-port.js';
import type { EventsRepo } from './port/events-port.js';
import type { RunsRepo } from './port/runs-port.js';
import type { SessionsRepo } from './port/sessions-port.js';
import type { StateRepo } from './port/state-port.js';
import type { DeliveriesRepo } from './port/deliveries-port.js';
import type { IdempotencyRepo } from './port/idempotency-port.js';
import type { StoreSignals } from './port/signals-port.js';
import type { KnowledgeRepo } from './port/knowledge-port.js';
import type { ApiKeysRepo } from './port/api-keys-port.js';

export type * from './port/operator-port.js';
export type * from './port/alerts-port.js';
export type * from './port/schedules-port.js';
export type * from './port/files-port.js';
export type * from './port/usage-port.js';
export type * from './port/tool-calls-port.js';
export * from './port/events-port.js';
export * from './port/runs-port.js';
export * from './port/sessions-port.js';
export * from './port/state-port.js';
export * from './port/deliveries-port.js';
export * from './port/idempotency-port.js';
export * from './port/signals-port.js';
export * from './port/knowledge-port.js';
export * from './queries/candidate-rule.js';
export * from './port/api-keys-port.js';

export interface Store {
  events: EventsRepo;
  runs: RunsRepo;
  sessions: SessionsRepo;
  state: StateRepo;
  deliveries: DeliveriesRepo;
  idempotency: IdempotencyRepo;
  signals: StoreSignals;
  knowledge: KnowledgeRepo;
  apiKeys: ApiKeysRepo;
  /** files uploaded through /v1/files, with their bytes */
  files: FilesRepo;
  /** vector stores and their files' processing status (their chunks are in `knowledge`) */
  vectorStores: VectorStoresRepo;
  /** readiness and metrics counts */
  probe: StoreProbe;
  /** a receipt per webhook request, and the payloads retained for replay */
  receipts: ReceiptsRepo;
  /** the operator's filtered, paginated lists over runs, events, sessions and deliveries */
  browse: BrowseRepo;
  /** the incidents alert rules raised (one open per incident key) */
  alerts: AlertsRepo;
  /** the tokens every model call spent, by key, agent, mapping and model (usage reports and budgets) */
  usage: UsageRepo;
  /** every tool call with its run, response or chat turn; the approvals waiting for a person */
  toolCalls: ToolCallsRepo;
  /** scheduled jobs, each with its next due time, and their fires (one per job and due time) */
  schedules: SchedulesRepo;
  /**
   * Takes the database for this process alone, when the adapter can tell: true when no other
   * process serves it, so whatever is in progress in it (running runs, in-progress idempotency
   * keys) was left by one that is gone, and may be taken back at once instead of when its lease
   * runs out. SQLite: an exclusive lock on a file beside the database (`<file>-serving`), held
   * until `close`; the operating system lets go of it when the process dies, kill -9 included.
   * PostgreSQL: false, replicas share the database and leases decide.
   */
  serveAlone(): Promise<boolean>;
  /** commits what is queued, then closes; the store is unusable afterwards */
  close(): Promise<void>;
}

export type { RunAction } from './port/run-action.js';
export type { StoreCounts, StoreProbe } from './port/store-probe.js';
