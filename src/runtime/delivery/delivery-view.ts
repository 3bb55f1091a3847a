import type { DeliveryRecord } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { shownRecipient } from './recipient-credential.js';

/** What the admin API shows of a delivery: its state and target, never the text or a secret. */
export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    runId: d.runId,
    kind: d.kind,
    status: d.status,
    channel: d.channel,
    to: shownRecipient(d.to),
    attempts: d.attempts,
    partsSent: d.partsSent,
    lastError: d.lastError,
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
    nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    deliveredAt: iso(d.deliveredAt),
    fallbackOf: d.fallbackOf ?? null,
    retriedAt: iso(d.retriedAt ?? null),
  };
}
