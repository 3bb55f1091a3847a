import type { DeliveryStatus } from './port.js';

/** Counts an operator watches, read on each metrics scrape: each one a cheap, indexed COUNT. */
export interface StoreCounts {
  runs: { queued: number; running: number };
  eventsPending: number;
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
