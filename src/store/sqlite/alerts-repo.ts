import { ALERT_COLUMNS, alertFilter, NOTICES_DUE_WHERE, toAlert, type AlertRow, type AlertsRepo } from '../contracts/alerts-port.js';
import { ListFilter, sqliteDialect } from '../queries/list-filter.js';
import type { SqliteDatabase } from './open-database.js';

export function sqliteAlertsRepo(db: SqliteDatabase): AlertsRepo {
  // one statement: the unique index on open incident keys refuses a second open row, and the
  // cooldown is read in the same statement that writes
  const raise = db.prepare<Record<string, unknown>, AlertRow>(
    `INSERT INTO alerts (${ALERT_COLUMNS})
     SELECT @id, @condition, @incidentKey, @cooldownKey, @subject, @summary, 'open',
       NOT EXISTS (SELECT 1 FROM alerts WHERE cooldown_key = @cooldownKey AND notified AND raised_at > @quietSince),
       @raisedAt, NULL, NULL, NULL
     WHERE true
     ON CONFLICT DO NOTHING
     RETURNING *`,
  );
  const resolve = db.prepare<[number, string], AlertRow>(`UPDATE alerts SET status = 'resolved', resolved_at = ? WHERE incident_key = ? AND status = 'open' RETURNING *`);
  const open = db.prepare<[], AlertRow>(`SELECT * FROM alerts WHERE status = 'open' ORDER BY raised_at, id`);
  const get = db.prepare<[string], AlertRow>('SELECT * FROM alerts WHERE id = ?');
  const due = db.prepare<[number, number, number], AlertRow>(`SELECT * FROM alerts WHERE ${NOTICES_DUE_WHERE} ORDER BY raised_at, id LIMIT ?`);
  const queued = {
    raised: db.prepare<[number, string]>('UPDATE alerts SET raised_queued_at = ? WHERE id = ? AND raised_queued_at IS NULL'),
    resolved: db.prepare<[number, string]>('UPDATE alerts SET resolved_queued_at = ? WHERE id = ? AND resolved_queued_at IS NULL'),
  };
  return {
    async raise(alert, cooldownMs) {
      const row = raise.get({ ...alert, quietSince: alert.raisedAt - cooldownMs });
      return row && toAlert(row);
    },
    async resolve(incidentKey, at) {
      const row = resolve.get(at, incidentKey);
      return row && toAlert(row);
    },
    async open() {
      return open.all().map(toAlert);
    },
    async get(id) {
      const row = get.get(id);
      return row && toAlert(row);
    },
    async list(query) {
      const f = alertFilter(new ListFilter(sqliteDialect, 'raised_at', 'id'), query);
      return (db.prepare(`SELECT * FROM alerts ${f.sql()} ${f.order(query.limit)}`).all(f.named) as AlertRow[]).map(toAlert);
    },
    async noticesDue(before, limit) {
      return due.all(before, before, limit).map(toAlert);
    },
    async noticeQueued(id, notice, at) {
      queued[notice].run(at, id);
    },
  };
}
