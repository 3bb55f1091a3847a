/**
 * Leases kept in durable state, for singleton jobs among processes sharing a store (the heartbeat,
 * a gmail watcher): part of the plugin SDK because plugins need them too.
 */
/** what a lease needs of the state: an atomic read-compute-write of one key */
export interface LeaseState {
  update<T>(key: string, fn: (current: T | undefined) => T): Promise<T>;
}

/** a lease kept in the state table: who holds a singleton job (the heartbeat, a gmail watcher) and until when */
export interface StateLease {
  owner: string;
  until: number;
  /** when the holder last finished its job (the heartbeat's periodic turn reads it) */
  lastDoneAt?: number;
}

/**
 * Takes (or renews) the lease at `key` for `owner` when it is free, expired or already the
 * owner's; atomic across processes (the state update reads and writes under one lock). Returns
 * the lease as it now stands: held by `owner` or by someone else.
 */
export async function takeLease(state: LeaseState, key: string, owner: string, ttlMs: number): Promise<StateLease> {
  return state.update<StateLease>(key, (current) => {
    const now = Date.now();
    if (current && current.owner !== owner && current.until > now) return current;
    return { ...current, owner, until: now + ttlMs };
  });
}

/** gives the lease up (when still the owner's), noting the job done at `doneAt` */
export async function releaseLease(state: LeaseState, key: string, owner: string, doneAt?: number): Promise<void> {
  await state.update<StateLease>(key, (current) => {
    if (!current || current.owner !== owner) return current ?? { owner: '', until: 0 };
    return { owner: '', until: 0, lastDoneAt: doneAt ?? current.lastDoneAt };
  });
}

/**
 * Holds a lease while `job` runs: takes it (false when another holds it), renews it every third
 * of its time, releases it after. `onRenew` extends whatever else the job claimed under it.
 */
export async function withLease<T>(
  state: LeaseState,
  key: string,
  owner: string,
  ttlMs: number,
  job: () => Promise<T>,
  onRenew?: (until: number) => Promise<void>,
): Promise<{ held: true; value: T } | { held: false; lease: StateLease }> {
  const lease = await takeLease(state, key, owner, ttlMs);
  if (lease.owner !== owner) return { held: false, lease };
  const timer = setInterval(() => {
    takeLease(state, key, owner, ttlMs)
      .then((l) => (l.owner === owner ? onRenew?.(l.until) : undefined))
      .catch(() => {}); // a missed renewal is retried at the next tick; the lease outlives two of them
  }, Math.max(100, Math.floor(ttlMs / 3)));
  timer.unref();
  let ok = false;
  try {
    const value = await job();
    ok = true;
    return { held: true, value };
  } finally {
    clearInterval(timer);
    await releaseLease(state, key, owner, ok ? Date.now() : undefined).catch(() => {});
  }
}
