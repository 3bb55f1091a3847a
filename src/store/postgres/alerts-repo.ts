import type pg from 'pg';
import { ALERT_COLUMNS, alertFilter, NOTICES_DUE_WHERE, toAlert, type AlertRow, type AlertsRepo } from '../contracts/alerts-port.js';
import { ListFilter, postgresDialect } from '../queries/list-filter.js';
import { query } from './pg-pool.js';

export function postgresAlertsRepo(pool: pg.Pool): AlertsRepo {
  const rows = async (text: string, values: unknown[]) => (await query<AlertRow>(pool, text, values)).rows.map(toAlert);
  return {
    async raise(alert, cooldownMs) {
      // one statement: the unique index on open incident keys decides between replicas raising
      // one incident at once (the others insert nothing), and the cooldown is read as it writes
      const [row] = await rows(
        `INSERT INTO alerts (${ALERT_COLUMNS})
         SELECT $1, $2, $3, $4, $5, $6, 'open',
           NOT EXISTS (SELECT 1 FROM alerts WHERE cooldown_key = $4 AND notified AND raised_at > $8),
           $7, NULL, NULL, NULL
         ON CONFLICT DO NOTHING
         RETURNING *`,
        [alert.id, alert.condition, alert.incidentKey, alert.cooldownKey, alert.subject, alert.summary, alert.raisedAt, alert.raisedAt - cooldownMs],
      );
      return row;
    },
    async resolve(incidentKey, at) {
      const [row] = await rows(`UPDATE alerts SET status = 'resolved', resolved_at = $1 WHERE incident_key = $2 AND status = 'open' RETURNING *`, [at, incidentKey]);
      return row;
    },
    async open() {
      return rows(`SELECT * FROM alerts WHERE status = 'open' ORDER BY raised_at, id`, []);
    },
    async get(id) {
      const [row] = await rows('SELECT * FROM alerts WHERE id = $1', [id]);
      return row;
    },
    async list(q) {
      const f = alertFilter(new ListFilter(postgresDialect, 'raised_at', 'id'), q);
      const where = f.sql();
      return rows(`SELECT * FROM alerts ${where} ${f.order(q.limit)}`, f.values);
    },
    async noticesDue(before, limit) {
      let n = 0;
      return rows(`SELECT * FROM alerts WHERE ${NOTICES_DUE_WHERE.replace(/\?/g, () => `$${++n}`)} ORDER BY raised_at, id LIMIT $3`, [before, before, limit]);
    },
    async noticeQueued(id, notice, at) {
      const column = notice === 'raised' ? 'raised_queued_at' : 'resolved_queued_at';
      await query(pool, `UPDATE alerts SET ${column} = $1 WHERE id = $2 AND ${column} IS NULL`, [at, id]);
    },
  };
}
