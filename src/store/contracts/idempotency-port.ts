import type { EventOutcome, EventsRepo } from './events-port.js';

/** One Idempotency-Key of a hook path: in progress, or done with the response to replay. */
export interface IdempotencyRecord {
  /** the hook path the key belongs to: keys are scoped per path */
  scope: string;
  key: string;
  /** sha256 hex of the hook path and the raw body */
  requestHash: string;
  status: 'in_progress' | 'done';
  /** the id the agent run of this request gets, chosen before dispatch (how a crash is recovered) */
  runId: string;
  responseStatus: number | null;
  /** the response body as JSON text; null for 204 */
  responseBody: string | null;
  createdAt: number;
  /** an in-progress record older than this belongs to a process that died */
  lockedUntil: number;
  expiresAt: number;
}

export type IdempotencyClaim =
  /** the caller owns the key now and processes the request */
  | { type: 'claimed'; record: IdempotencyRecord }
  /** someone else's: done (replay or mismatch) or still in progress */
  | { type: 'existing'; record: IdempotencyRecord };

export interface IdempotencyRepo {
  /**
   * Takes a key or returns what holds it, atomically (of two racing callers one claims it).
   * An expired record is forgotten first. A stale in-progress record (past `lockedUntil`)
   * is recovered: when its run exists (the process died after the run was stored) it becomes
   * done with that run's 202; otherwise nothing of it was stored and it is claimed afresh.
   */
  claim(record: IdempotencyRecord, now: number): Promise<IdempotencyClaim>;
  complete(scope: string, key: string, response: { status: number; body: string | null }): Promise<void>;
  /**
   * Adds a system event (as EventsRepo.enqueue) and completes the key with the response made for
   * its outcome (`coalesced`: it repeated the pending one before it), in one commit: an idempotent
   * wake whose answer was lost to a crash is replayed on retry, never stored twice.
   */
  completeWithEvent(
    scope: string,
    key: string,
    response: (outcome: EventOutcome) => { status: number; body: string | null },
    event: { session: string; text: string; maxPending: number },
  ): Promise<EventOutcome>;
  /**
   * A keyed wake in one commit: the key, stored done with the response made for its event's
   * outcome, and the event (as EventsRepo.enqueue), only when nobody holds the key; undefined and
   * nothing stored when someone does (even an expired record: that is `claim`'s to judge). The
   * record's run id, times and hash are the claim's would be.
   */
  insertWithEvent(
    record: Omit<IdempotencyRecord, 'status' | 'responseStatus' | 'responseBody'>,
    response: (outcome: EventOutcome) => { status: number; body: string | null },
    event: { session: string; text: string; maxPending: number },
  ): Promise<EventOutcome | undefined>;
  /** forgets an in-progress key whose request failed, so a retry is processed afresh */
  release(scope: string, key: string): Promise<void>;
  /**
   * Recovers every in-progress key as `claim` recovers a stale one, whatever its `lockedUntil`:
   * done with its run's 202 when the run exists, else forgotten. For a process that serves the
   * database alone (see Store.serveAlone), at its start, when whoever held them is gone. Returns how many.
   */
  recoverInProgress(): Promise<number>;
  /** deletes expired records (never one still locked); returns how many */
  prune(now: number): Promise<number>;
}
