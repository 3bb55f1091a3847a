import type { DeliveryStatus } from '../port.js';
import type { StoreCounts } from '../contracts/store-probe.js';

/**
 * The probe's counts from the rows of `store_counts` (`runs:queued`, `deliveries:failed`,
 * `knowledge:chunks`, ...), as both adapters keep them; a name not there reads 0.
 */
export function countsFromRows(rows: Iterable<{ name: string; n: number | string }>): StoreCounts {
  const n = new Map<string, number>();
  for (const row of rows) n.set(row.name, Number(row.n));
  const of = (name: string) => n.get(name) ?? 0;
  const deliveries = {} as Record<DeliveryStatus, number>;
  for (const status of ['pending', 'sending', 'delivered', 'failed', 'abandoned'] as const) deliveries[status] = of(`deliveries:${status}`);
  return {
    runs: { queued: of('runs:queued'), running: of('runs:running'), waitingApproval: of('runs:waiting_approval') },
    eventsPending: of('events:pending'),
    eventsDropped: of('events:dropped'),
    deliveries,
    knowledgeDocuments: of('knowledge:documents'),
    knowledgeChunks: of('knowledge:chunks'),
  };
}
