import type pg from 'pg';
import type { DeliveryStatus } from '../port.js';
import type { StoreCounts, StoreProbe } from '../store-probe.js';
import { query } from './pg-pool.js';

/** /readyz and /metrics over PostgreSQL: every count answered from a partial or status index */
export function postgresProbe(pool: pg.Pool): StoreProbe {
  return {
    async ping() {
      await query(pool, 'SELECT 1');
    },
    async counts(): Promise<StoreCounts> {
      const { rows } = await query<{ what: string; status: string; n: number }>(
        pool,
        `SELECT 'runs' AS what, status, COUNT(*)::int AS n FROM runs WHERE status IN ('queued', 'running') GROUP BY status
         UNION ALL SELECT 'events', 'pending', COUNT(*)::int FROM events WHERE status = 'pending'
         UNION ALL SELECT 'events', 'dropped', COUNT(*)::int FROM events WHERE status = 'dropped'
         UNION ALL SELECT 'deliveries', status, COUNT(*)::int FROM deliveries GROUP BY status
         UNION ALL SELECT 'knowledge', 'documents', COUNT(*)::int FROM knowledge_documents
         UNION ALL SELECT 'knowledge', 'chunks', COALESCE(SUM(chunk_count), 0)::int FROM knowledge_documents`,
      );
      const runs = { queued: 0, running: 0 };
      const deliveries: Record<DeliveryStatus, number> = { pending: 0, sending: 0, delivered: 0, failed: 0, abandoned: 0 };
      let eventsPending = 0;
      let knowledgeDocuments = 0;
      let knowledgeChunks = 0;
      let eventsDropped = 0;
      for (const row of rows) {
        if (row.what === 'runs' && (row.status === 'queued' || row.status === 'running')) runs[row.status] = row.n;
        else if (row.what === 'events' && row.status === 'dropped') eventsDropped = row.n;
        else if (row.what === 'events') eventsPending = row.n;
        else if (row.what === 'deliveries' && row.status in deliveries) deliveries[row.status as DeliveryStatus] = row.n;
        else if (row.what === 'knowledge') (row.status === 'documents' ? (knowledgeDocuments = row.n) : (knowledgeChunks = row.n));
      }
      return { runs, eventsPending, eventsDropped, deliveries, knowledgeDocuments, knowledgeChunks };
    },
  };
}
