import type { ListFilter } from '../queries/list-filter.js';
import type { ListQuery } from './operator-port.js';

/** `open` while its condition holds; `resolved` once it cleared */
export type AlertStatus = 'open' | 'resolved';

/**
 * One incident an alert rule raised. The store decides who alerts: an incident key has at most
 * one open row (a unique index), so of several replicas raising it at once one inserts and the
 * others get nothing; resolving is a conditional update, won by one of them too.
 */
export interface AlertRecord {
  id: string;
  /** the rule's `on`: delivery.failed, runs.failing, ... */
  condition: string;
  /** what makes it one incident, e.g. `runs.failing:mapping:github` */
  incidentKey: string;
  /** the incidents sharing one cooldown (an incident key, or a channel's failed deliveries) */
  cooldownKey: string;
  /** what it is about: a mapping, an agent, a channel, a service */
  subject: string;
  /** the text sent, without secrets or payload values */
  summary: string;
  status: AlertStatus;
  /** false: raised within the cooldown of an earlier alert of its cooldown key, so stored but not sent */
  notified: boolean;
  raisedAt: number;
  resolvedAt: number | null;
  /** when its raised (resolved) notice was handed to the delivery outbox; null while not yet (or never, when not notified) */
  raisedQueuedAt: number | null;
  resolvedQueuedAt: number | null;
}

export type NewAlert = Pick<AlertRecord, 'id' | 'condition' | 'incidentKey' | 'cooldownKey' | 'subject' | 'summary' | 'raisedAt'>;

export interface AlertQuery extends ListQuery {
  status?: AlertStatus;
  condition?: string;
  subject?: string;
}

/** which notice of an alert: the one saying it happened, or the one saying it cleared */
export type AlertNotice = 'raised' | 'resolved';

export interface AlertsRepo {
  /**
   * Opens an incident unless its key has an open one (then undefined), atomically. It is
   * `notified` unless an alert of its cooldown key was notified less than `cooldownMs` before it.
   */
  raise(alert: NewAlert, cooldownMs: number): Promise<AlertRecord | undefined>;
  /** resolves the key's open incident and returns it; undefined when none was open (or another caller resolved it) */
  resolve(incidentKey: string, at: number): Promise<AlertRecord | undefined>;
  /** every open incident, oldest first */
  open(): Promise<AlertRecord[]>;
  get(id: string): Promise<AlertRecord | undefined>;
  /** newest first (by raisedAt, id) */
  list(query: AlertQuery): Promise<AlertRecord[]>;
  /** notified alerts with a notice not yet queued, written at or before `before` (its writer presumably died), oldest first */
  noticesDue(before: number, limit: number): Promise<AlertRecord[]>;
  /** records that the notice was queued in the outbox */
  noticeQueued(id: string, notice: AlertNotice, at: number): Promise<void>;
}

/** the WHERE of an alerts list, the same for both adapters */
export function alertFilter(f: ListFilter, query: AlertQuery): ListFilter {
  return f
    .where('status = ?', query.status)
    .where('condition = ?', query.condition)
    .where('subject = ?', query.subject)
    .page(query, ['id', 'incident_key', 'subject', 'summary']);
}

/** an alert row as both adapters read it (notified is 0/1 on SQLite, a boolean on PostgreSQL) */
export interface AlertRow {
  id: string;
  condition: string;
  incident_key: string;
  cooldown_key: string;
  subject: string;
  summary: string;
  status: AlertStatus;
  notified: number | boolean;
  raised_at: number | string;
  resolved_at: number | string | null;
  raised_queued_at: number | string | null;
  resolved_queued_at: number | string | null;
}

const time = (value: number | string | null): number | null => (value === null ? null : Number(value));

export const toAlert = (row: AlertRow): AlertRecord => ({
  id: row.id,
  condition: row.condition,
  incidentKey: row.incident_key,
  cooldownKey: row.cooldown_key,
  subject: row.subject,
  summary: row.summary,
  status: row.status,
  notified: Boolean(row.notified),
  raisedAt: Number(row.raised_at),
  resolvedAt: time(row.resolved_at),
  raisedQueuedAt: time(row.raised_queued_at),
  resolvedQueuedAt: time(row.resolved_queued_at),
});

export const ALERT_COLUMNS = 'id, condition, incident_key, cooldown_key, subject, summary, status, notified, raised_at, resolved_at, raised_queued_at, resolved_queued_at';

/** the notices due (see AlertsRepo.noticesDue), with `?` for `before` twice then the limit */
export const NOTICES_DUE_WHERE = `notified AND ((raised_queued_at IS NULL AND raised_at <= ?) OR (status = 'resolved' AND resolved_queued_at IS NULL AND resolved_at <= ?))`;
