/** An open event a claim found: pending, or processing under a lease that ran out. */
export interface OpenEvent<T> {
  event: T;
  pending: boolean;
}

/**
 * The main session queue's rules applied by a claim to what it found (PostgreSQL's
 * herald_claim_events says the same in SQL): an event repeating the one before it is dropped,
 * and of the pending ones left only the newest `maxPending` are taken. The enqueue applies them
 * already; the claim applies them again for what got in past it (enqueues that raced).
 */
export function applyQueueRules<T extends { id: number; text: string }>(open: OpenEvent<T>[], maxPending: number): { taken: T[]; dropped: T[] } {
  const byId = [...open].sort((a, b) => a.event.id - b.event.id);
  const repeat = byId.map((o, i) => i > 0 && byId[i - 1]!.event.text === o.event.text);
  let pendingLeft = byId.filter((o, i) => o.pending && !repeat[i]).length;
  const taken: T[] = [];
  const dropped: T[] = [];
  byId.forEach((o, i) => {
    // the pending ones older than the newest maxPending go; a lapsed claim stays whatever its age
    const overflow = o.pending && !repeat[i] && pendingLeft-- > maxPending;
    (repeat[i] || overflow ? dropped : taken).push(o.event);
  });
  return { taken, dropped };
}
