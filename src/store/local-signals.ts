import type { StoreSignals } from './port.js';

/**
 * Signals within one process: what SQLite needs (one process per database file), and what the
 * PostgreSQL adapter uses to tell this process at once before telling the others.
 */
export class LocalSignals implements StoreSignals {
  private readonly listeners = new Map<string, Set<() => void>>();

  publish(topic: string): void {
    for (const listener of this.listeners.get(topic) ?? []) {
      // a listener's fault is its own: the publisher (a request) must not fail for it
      try {
        listener();
      } catch {
        /* ignored */
      }
    }
  }

  subscribe(topic: string, listener: () => void): () => void {
    const set = this.listeners.get(topic) ?? new Set();
    this.listeners.set(topic, set.add(listener));
    return () => void set.delete(listener);
  }

  topics(): string[] {
    return [...this.listeners.keys()];
  }
}
