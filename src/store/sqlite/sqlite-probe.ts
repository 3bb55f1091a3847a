import type { DeliveryStatus } from '../port.js';
import type { StoreCounts, StoreProbe } from '../store-probe.js';
import type { SqliteDatabase } from './open-database.js';

/**
 * The store probe over SQLite. Every count is answered from an index (runs_unfinished,
 * events_session_status, deliveries_status, the knowledge tables' own), never by reading the
 * rows themselves: a scrape stays cheap however large the outbox or knowledge base grows.
 */
export function sqliteProbe(db: SqliteDatabase): StoreProbe {
  const ping = db.prepare('SELECT COUNT(*) FROM sqlite_master').pluck();
  const runs = db.prepare("SELECT status, COUNT(*) AS n FROM runs WHERE status IN ('queued', 'running') GROUP BY status");
  const eventsPending = db.prepare("SELECT COUNT(*) FROM events WHERE status = 'pending'").pluck();
  const eventsDropped = db.prepare("SELECT COUNT(*) FROM events WHERE status = 'dropped'").pluck();
  const deliveries = db.prepare('SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status');
  const documents = db.prepare('SELECT COUNT(*) FROM knowledge_documents').pluck();
  const chunks = db.prepare('SELECT COUNT(*) FROM knowledge_chunks').pluck();
  return {
    async ping() {
      ping.get();
    },
    async counts(): Promise<StoreCounts> {
      const runCounts = { queued: 0, running: 0 };
      for (const row of runs.all() as { status: 'queued' | 'running'; n: number }[]) runCounts[row.status] = row.n;
      const deliveryCounts: Record<DeliveryStatus, number> = { pending: 0, sending: 0, delivered: 0, failed: 0, abandoned: 0 };
      for (const row of deliveries.all() as { status: DeliveryStatus; n: number }[]) {
        if (row.status in deliveryCounts) deliveryCounts[row.status] = row.n;
      }
      return {
        runs: runCounts,
        eventsPending: eventsPending.get() as number,
        eventsDropped: eventsDropped.get() as number,
        deliveries: deliveryCounts,
        knowledgeDocuments: documents.get() as number,
        knowledgeChunks: chunks.get() as number,
      };
    },
  };
}
