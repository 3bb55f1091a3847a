import { createHash } from 'node:crypto';
import type { AlertNotice, AlertRecord } from '../../store/port.js';

/**
 * The id of one notice to one target, derived from the alert: queueing it again (a replica
 * finishing what a dead one began) finds the row already there.
 */
export function noticeId(alertId: string, notice: AlertNotice, target: number): string {
  return derivedDeliveryId(`${alertId}:${notice}:${target}`);
}

/** a delivery id derived from what the delivery is (the same seed gives the same id), shaped as a UUID (version 8: custom) like every other delivery id */
export function derivedDeliveryId(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** the text a target receives: what, about what, and since when */
export function noticeText(alert: AlertRecord, notice: AlertNotice): string {
  if (notice === 'raised') return `herald alert: ${alert.condition} (${alert.subject}): ${alert.summary}`;
  const seconds = Math.round(((alert.resolvedAt ?? alert.raisedAt) - alert.raisedAt) / 1000);
  const lasted = seconds < 120 ? `${seconds} s` : seconds < 7200 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3600)} h`;
  return `herald resolved: ${alert.condition} (${alert.subject}) cleared after ${lasted}: ${alert.summary}`;
}
