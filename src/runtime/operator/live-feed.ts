import type { StoreSignals } from '../../store/port.js';
import { CHANGE_KINDS, changeTopic, type ChangeKind } from './change-feed.js';

/** one push to the live clients: which kinds changed, and the snapshot taken after (undefined when the store failed it) */
export interface LiveMessage<T> {
  kinds: ChangeKind[];
  snapshot?: T;
}

/**
 * The console's side of the change feed: listens to the store's change signals while at least
 * one client is connected, and after each change takes one snapshot (the Overview numbers) for
 * every client. The store is read only when something changed, never on a timer; changes that
 * arrive while a snapshot is being taken are gathered into the next one, so a burst costs a
 * snapshot or two, whatever the number of clients.
 */
export class LiveFeed<T> {
  private readonly listeners = new Set<(message: LiveMessage<T>) => void>();
  private readonly pending = new Set<ChangeKind>();
  private unsubscribe: (() => void)[] = [];
  private running = false;

  constructor(
    private readonly signals: StoreSignals,
    private readonly snapshot: () => Promise<T>,
  ) {}

  /** returns the unsubscribe function */
  subscribe(listener: (message: LiveMessage<T>) => void): () => void {
    if (this.listeners.size === 0) {
      this.unsubscribe = CHANGE_KINDS.map((kind) => this.signals.subscribe(changeTopic(kind), () => this.changed(kind)));
    }
    this.listeners.add(listener);
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      for (const off of this.unsubscribe.splice(0)) off();
      this.pending.clear();
    };
  }

  private changed(kind: ChangeKind): void {
    this.pending.add(kind);
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.pending.size > 0 && this.listeners.size > 0) {
        const kinds = [...this.pending];
        this.pending.clear();
        // a failed snapshot (the store unreachable) still tells what changed: the pages reload and show the error
        const snapshot = await this.snapshot().catch(() => undefined);
        for (const listener of [...this.listeners]) listener({ kinds, ...(snapshot !== undefined && { snapshot }) });
      }
    } finally {
      this.running = false;
    }
  }
}
