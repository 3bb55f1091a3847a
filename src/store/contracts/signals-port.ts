/**
 * Wake-ups between the processes sharing a store (a `/hooks/wake` on one replica starts the
 * heartbeat on whichever holds its lease). Best effort and coalesced: a lost signal costs latency,
 * never work, because the work itself is in the store and polled for.
 */
export interface StoreSignals {
  /** tells every process on this store, this one included */
  publish(topic: string): void;
  /** returns the unsubscribe function */
  subscribe(topic: string, listener: () => void): () => void;
}
