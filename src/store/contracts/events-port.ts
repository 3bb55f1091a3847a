export type EventStatus = 'pending' | 'processing' | 'done' | 'dropped';

export interface SystemEvent {
  id: number;
  session: string;
  text: string;
  status: EventStatus;
  createdAt: number;
  /** the summary of a run over outside content (its mapping without allowUnsafeExternalContent): the heartbeat reads it as data */
  untrusted: boolean;
}

/**
 * A claim on work: who holds it and until when. A replica renews the leases of the work it is
 * doing; work whose lease ran out (its replica died or hung) may be claimed by anyone.
 */
export interface Lease {
  owner: string;
  now: number;
  until: number;
}

export interface EventsRepo {
  /**
   * Adds a pending event unless it repeats the session's previous one; keeps at most `maxPending`
   * pending. One enqueue after another (a process's own) applies both rules exactly. Enqueues that
   * race (replicas on one PostgreSQL database) are not held up for each other: each decides
   * against what the others committed, so a repeat, or more than `maxPending` pending, may stay
   * in the queue (the list, the count) until the next enqueue or claim, and the claim applies
   * both rules to what it takes.
   */
  enqueue(session: string, text: string, maxPending: number): Promise<SystemEvent | undefined>;
  /**
   * Claims the session's pending events, and processing ones whose lease ran out (a replica that
   * died mid-heartbeat), for `lease.owner` until `lease.until`; oldest first. Two claimers never
   * get the same event. The queue's rules hold for what it returns, whatever got in past the
   * enqueue: an event repeating the one before it is dropped, and so are the pending ones older
   * than the newest `maxPending`.
   */
  claimPending(session: string, lease: Lease, maxPending: number): Promise<SystemEvent[]>;
  complete(ids: number[]): Promise<void>;
  /** extends the owner's claim on these events */
  renew(ids: number[], owner: string, until: number): Promise<void>;
  /** gives the owner's claimed events back: pending again (a failed heartbeat) */
  release(ids: number[], owner: string): Promise<void>;
  /**
   * Every processing event, whoever claimed it, is pending again: for a process that serves the
   * database alone (see Store.serveAlone), at its start, when whoever held them is gone. Returns how many.
   */
  requeueProcessing(): Promise<number>;
  list(session: string, limit: number): Promise<SystemEvent[]>;
  countPending(session: string): Promise<number>;
}

/** what became of a system event: added to the queue, or joined to the identical pending one before it */
export type EventOutcome = 'queued' | 'coalesced';
