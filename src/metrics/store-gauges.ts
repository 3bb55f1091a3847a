import { Gauge, type Registry } from 'prom-client';
import type { StoreCounts, StoreProbe } from '../store/contracts/store-probe.js';

/**
 * Gauges read from the store when Prometheus scrapes, not kept up to date by the code that
 * changes the rows: the store is the truth, also across restarts and for work another process
 * did. One probe call serves every gauge of a scrape (the registry collects them all at once).
 */
export function registerStoreGauges(registry: Registry, probe: StoreProbe): void {
  let pending: Promise<StoreCounts | undefined> | undefined;
  const counts = () =>
    (pending ??= probe
      .counts()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (pending = undefined))));

  /** when the store does not answer, the series are dropped (unknown) rather than left stale, and herald_store_up says 0 */
  const gauge = <L extends string>(name: string, help: string, labelNames: L[], set: (g: Gauge<L>, c: StoreCounts | undefined) => void) => {
    const g: Gauge<L> = new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const c = await counts();
        g.reset();
        set(g, c);
      },
    });
  };

  gauge('herald_store_up', 'Whether the store answered the counts of this scrape (1) or not (0).', [], (g, c) => g.set(c ? 1 : 0));
  gauge('herald_runs', 'Agent runs not finished yet, by status (queued, running, waiting_approval).', ['status'], (g, c) => {
    if (!c) return;
    g.set({ status: 'queued' }, c.runs.queued);
    g.set({ status: 'running' }, c.runs.running);
    g.set({ status: 'waiting_approval' }, c.runs.waitingApproval);
  });
  gauge('herald_deliveries', 'Deliveries in the outbox, by status (pending, sending, delivered, failed).', ['status'], (g, c) => {
    if (c) for (const [status, n] of Object.entries(c.deliveries)) g.set({ status }, n);
  });
  // label-less gauges cannot be absent once registered: on a failed read they read 0, and herald_store_up tells
  gauge('herald_events_pending', 'System events waiting for the next heartbeat.', [], (g, c) => g.set(c?.eventsPending ?? 0));
  gauge('herald_events_dropped', 'System events dropped because the main session already held 20 pending (every sender got 200).', [], (g, c) => g.set(c?.eventsDropped ?? 0));
  gauge('herald_knowledge_documents', 'Knowledge documents, all agents.', [], (g, c) => g.set(c?.knowledgeDocuments ?? 0));
  gauge('herald_knowledge_chunks', 'Knowledge chunks, all agents.', [], (g, c) => g.set(c?.knowledgeChunks ?? 0));
}
