import type { DeliveryStatus } from './deliveries-port.js';

/** Counts an operator watches, read on each metrics scrape: kept by the store as rows change, never counted then (store-counts.ts). */
export interface StoreCounts {
  /** the unfinished runs: queued, running, and paused until a person decides on a tool call */
  runs: { queued: number; running: number; waitingApproval: number };
  eventsPending: number;
  /** events dropped because the main session already held its 20 pending (kept in the store with status dropped) */
  eventsDropped: number;
  deliveries: Record<DeliveryStatus, number>;
  knowledgeDocuments: number;
  knowledgeChunks: number;
}

/** What the operator endpoints ask of the store: is it answering (/readyz), and how much is in it (/metrics). */
export interface StoreProbe {
  /** throws when the store does not answer a trivial query */
  ping(): Promise<void>;
  counts(): Promise<StoreCounts>;
}
