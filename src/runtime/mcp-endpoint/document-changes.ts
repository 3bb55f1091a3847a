import type { Store } from '../../store/port.js';
import { documentUri } from './ask-agent.js';

/** the store signal told when a knowledge document is added or removed (on PostgreSQL it crosses replicas) */
export const DOCUMENTS_TOPIC = 'mcp.documents';

/**
 * The store, telling DOCUMENTS_TOPIC after a document is added or deleted: tapping the port
 * itself, so no writer is missed (/v1/knowledge, vector stores, the console, another replica).
 */
export function withDocumentSignals<S extends Store>(store: S): S {
  const { knowledge, signals } = store;
  return {
    ...store,
    knowledge: {
      ...knowledge,
      add: async (...args: Parameters<typeof knowledge.add>) => {
        const added = await knowledge.add(...args);
        if (added.created) signals.publish(DOCUMENTS_TOPIC);
        return added;
      },
      delete: async (id: string) => {
        const deleted = await knowledge.delete(id);
        if (deleted) signals.publish(DOCUMENTS_TOPIC);
        return deleted;
      },
    },
  };
}

/**
 * Which document resources changed: the signal says only that some did, so the URIs are read
 * again and compared with the last reading. `onChange` gets the URIs added or removed.
 */
export class DocumentChanges {
  private known?: Set<string>;
  private reading?: Promise<void>;
  private again = false;
  private unsubscribe?: () => void;

  constructor(
    private readonly store: Pick<Store, 'knowledge' | 'signals'>,
    private readonly onChange: (uris: string[]) => Promise<void>,
  ) {}

  async start(): Promise<void> {
    this.known = await this.uris();
    this.unsubscribe = this.store.signals.subscribe(DOCUMENTS_TOPIC, () => void this.read());
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** one reading at a time; signals meanwhile ask for one more after it */
  private async read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        const now = await this.uris();
        const before = this.known ?? new Set<string>();
        const changed = [...now].filter((u) => !before.has(u)).concat([...before].filter((u) => !now.has(u)));
        this.known = now;
        if (changed.length) await this.onChange(changed).catch(() => undefined);
      } while (this.again);
    })().finally(() => (this.reading = undefined));
    await this.reading;
  }

  private async uris(): Promise<Set<string>> {
    return new Set((await this.store.knowledge.list()).map((d) => documentUri(d.agentId, d.id)));
  }
}
