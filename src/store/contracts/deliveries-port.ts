/** `abandoned`: an operator gave up on it (never retried again) */
export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'abandoned';

/** One reply on its way to a chat channel: a row of the durable outbox. */
export interface DeliveryRecord {
  id: string;
  /** null for a heartbeat reply */
  runId: string | null;
  /** `alert`: an alert's notice to an alerts target (never itself alerted on when it fails); `tool`: an agent's herald__send_message */
  kind: 'run' | 'heartbeat' | 'alert' | 'tool';
  /** the resolved plugin id; null when no channel could be resolved */
  channel: string | null;
  to: string | null;
  text: string;
  sessionKey: string;
  agentId: string;
  status: DeliveryStatus;
  attempts: number;
  /** parts of a split message the platform already accepted */
  partsSent: number;
  lastError: string | null;
  nextAttemptAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
  /** the delivery this one replaces: its primary (or previous fallback) failed for good */
  fallbackOf?: string | null;
  /** when an operator last put it back in line (its age for `retry.maxAgeMs` counts from here) */
  retriedAt?: number | null;
  /** the W3C traceparent of the span that queued it (its run's), so each attempt joins that trace; absent when none was recorded */
  traceContext?: string | null;
}

/** Which failed deliveries an operator's bulk retry or abandon acts on; every given condition must hold. */
export interface FailedDeliveryFilter {
  channel?: string;
  /** replies of runs whose action this mapping resolved */
  mappingId?: string;
  /** created at or after / at or before (epoch ms) */
  since?: number;
  until?: number;
  /** a case-insensitive substring of the delivery's last error */
  error?: string;
}

/** the deliveries a retry can send: on a configured channel, with a recipient where the channel needs one */
export interface RetryableTargets {
  channels: string[];
  /** channels that need no recipient (webhook) */
  recipientOptional: string[];
}

export interface DeliveriesRepo {
  /**
   * Adds a delivery; a run's reply only when that run has none yet (checked in the same
   * statement, so two callers racing on one run insert one row), and only when its id is not stored
   * yet (an alert's notice, whose id is derived from the alert). False when it was not added.
   */
  insert(delivery: DeliveryRecord): Promise<boolean>;
  /**
   * Ids of runs that succeeded at or after `since`, asked for delivery (`deliver` not false) and
   * have no delivery row: a process that stopped between finishing a run and queueing its reply.
   */
  runsAwaitingDelivery(since: number): Promise<string[]>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /** the deliveries of a run, oldest first */
  forRun(runId: string): Promise<DeliveryRecord[]>;
  list(filter: { status?: DeliveryStatus; limit: number }): Promise<DeliveryRecord[]>;
  /** ids that are due: pending and due, or sending with an expired lease (a crashed worker's) */
  due(now: number, limit: number): Promise<string[]>;
  /** the earliest time something may become due: next attempt of a pending one or lease expiry */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Takes a due delivery for `owner` until `leaseUntil` and counts the attempt, atomically:
   * of two workers claiming one delivery, exactly one gets it (the other gets undefined).
   */
  claim(id: string, owner: string, now: number, leaseUntil: number): Promise<DeliveryRecord | undefined>;
  /** records a part accepted by the platform and extends the claim to `leaseUntil` (never shortens it); false when the lease was lost */
  partSent(id: string, owner: string, partsSent: number, leaseUntil?: number): Promise<boolean>;
  /** `delivered`, `failed`, `abandon` and `abandonFailed` make a row final: its recipient's credential (`#token=...`) is scrubbed in the same write */
  delivered(id: string, owner: string, at: number): Promise<boolean>;
  retryAt(id: string, owner: string, nextAttemptAt: number, error: string): Promise<boolean>;
  /**
   * A pending or sending delivery (under `owner`'s lease, unless null) fails for good; with
   * `fallback`, the delivery replacing it is added in the same write (once per failed delivery).
   */
  failed(id: string, owner: string | null, error: string, at: number, fallback?: DeliveryRecord): Promise<boolean>;
  /**
   * Puts a failed delivery back in line (an operator's retry): pending, due at `at`, attempts
   * counted afresh; parts already accepted stay sent. False when it is not failed.
   */
  requeue(id: string, at: number): Promise<boolean>;
  /** an operator's abandon: a pending or failed delivery becomes abandoned; false otherwise (sending, delivered) */
  abandon(id: string, at: number): Promise<boolean>;
  /**
   * Every pending delivery whose recipient carries a one-reply credential (`#token=`, Discord's
   * interaction token) and was queued before `createdBefore` fails with `error`, its credential
   * scrubbed as every final row's is (queries/recipient-scrub.ts); returns them as they now are. A
   * sending one is left to its worker.
   */
  expireCredentials(createdBefore: number, at: number, error: string): Promise<DeliveryRecord[]>;
  /** gives a claim back without counting the attempt (shutdown in the middle of a send) */
  release(id: string, owner: string, at: number): Promise<void>;
  /**
   * Every sending delivery, whoever held it, is pending again and due at `at` (its attempt stays
   * counted, its parts sent stay sent): for a process that serves the database alone (see
   * Store.serveAlone), at its start, when whoever held them is gone. Returns how many.
   */
  requeueSending(at: number): Promise<number>;
  /**
   * How many failed deliveries match `filter`; with `retryable`, only those a bulk retry would put
   * back in line (a target it can send to, no credential scrubbed from it, and no fallback sent in
   * their place).
   */
  countFailed(filter: FailedDeliveryFilter, retryable?: RetryableTargets): Promise<number>;
  /** an operator's bulk retry: each failed delivery `countFailed(filter, retryable)` counts, back in line as `requeue` does; how many */
  requeueFailed(filter: FailedDeliveryFilter, retryable: RetryableTargets, at: number): Promise<number>;
  /** an operator's bulk abandon of the failed deliveries matching `filter`; how many */
  abandonFailed(filter: FailedDeliveryFilter, at: number): Promise<number>;
}
