import type { StoreProbe } from './contracts/store-probe.js';

/**
 * The storage port: what the rest of herald asks of a store, and the only door to the database.
 * `openStore` (open-store.ts) picks the adapter: SQLite (`store/sqlite/`, the default) or
 * PostgreSQL (`store/postgres/`). Every method is async so a networked adapter fits behind the
 * same port; every atomicity rule written here holds on every adapter, and the contract suite
 * (test/store/*.case.ts) checks it on each. Times are epoch milliseconds.
 */
import type { BrowseRepo, ReceiptsRepo } from './contracts/operator-port.js';
import type { AlertsRepo } from './contracts/alerts-port.js';
import type { SchedulesRepo } from './contracts/schedules-port.js';
import type { FilesRepo, VectorStoresRepo } from './contracts/files-port.js';
import type { UsageRepo } from './contracts/usage-port.js';
import type { ToolCallsRepo } from './contracts/tool-calls-port.js';
import type { EventsRepo } from './contracts/events-port.js';
import type { RunsRepo } from './contracts/runs-port.js';
import type { SessionsRepo } from './contracts/sessions-port.js';
import type { StateRepo } from './contracts/state-port.js';
import type { DeliveriesRepo } from './contracts/deliveries-port.js';
import type { IdempotencyRepo } from './contracts/idempotency-port.js';
import type { StoreSignals } from './contracts/signals-port.js';
import type { KnowledgeRepo } from './contracts/knowledge-port.js';
import type { ApiKeysRepo } from './contracts/api-keys-port.js';
import type { QuestionsRepo } from './contracts/questions-port.js';

export type * from './contracts/operator-port.js';
export type * from './contracts/alerts-port.js';
export type * from './contracts/schedules-port.js';
export type * from './contracts/files-port.js';
export type * from './contracts/usage-port.js';
export type * from './contracts/tool-calls-port.js';
export * from './contracts/events-port.js';
export * from './contracts/runs-port.js';
export * from './contracts/sessions-port.js';
export * from './contracts/state-port.js';
export * from './contracts/deliveries-port.js';
export * from './contracts/idempotency-port.js';
export * from './contracts/signals-port.js';
export * from './contracts/knowledge-port.js';
export * from './queries/candidate-rule.js';
export * from './contracts/api-keys-port.js';
export type * from './contracts/questions-port.js';

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
  /** questions MCP servers asked a person during a tool call (elicitation), beside the approvals */
  questions: QuestionsRepo;
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
  /**
   * A store that commits its writes in order (SQLite's group commit) tells `committed` the value of
   * `write`, a write of its own just asked for, once it committed, before its promise settles, and
   * answers true: a reaction to every write of a kind (the change feed) without a promise per
   * write. False (or absent) when it cannot: the caller reacts to the write's promise.
   */
  afterCommit?(write: Promise<unknown>, committed: (value: unknown) => void): boolean;
  /** commits what is queued, then closes; the store is unusable afterwards */
  close(): Promise<void>;
}

export type { RunAction } from './contracts/run-action.js';
export type { StoreCounts, StoreProbe } from './contracts/store-probe.js';

/** how a store is opened (openStore) */
export interface StoreOpenOptions {
  /**
   * a reader beside the serving gateway (an eval's sandbox): the database is opened read-only and
   * never migrated (it must be at this herald's version); a write through it fails in the database
   */
  readOnly?: boolean;
}
