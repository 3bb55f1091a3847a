import { randomUuid } from './random-uuid.js';

/** a millisecond ids were made in, the counter its ids took (RFC 9562 §6.2, method 1) and their text up to it */
interface Millisecond {
  ms: number;
  counter: number;
  prefix: string;
}

/**
 * The latest milliseconds ids were made in, the oldest first out. A request makes ids for more
 * than one: its receipt's for the time it was received (a response's latency ago), its run's and
 * session's for now. Each keeps its own counter, so switching between them does not restart a
 * millisecond's count at a random value and two receipts of one millisecond still list in order.
 */
const recent = new Map<number, Millisecond>();
/** milliseconds kept: a receipt's id is made up to its request's latency after it was received */
const RECENT = 1024;
/** the one the last id was made in */
let last: Millisecond | undefined;
/** the counter's 12 bits (rand_a); it starts at a random value below half, so a millisecond has room for 2,048 ids at least */
const COUNTER_MAX = 0xfff;

/** the entry of `now`, made (and the oldest forgotten) when it is not among the recent ones */
function millisecond(now: number, random: string): Millisecond {
  const kept = recent.get(now);
  if (kept) return kept;
  const time = now.toString(16).padStart(12, '0');
  const made = { ms: now, counter: (Number.parseInt(random.slice(15, 18), 16) & 0x7ff) - 1, prefix: `${time.slice(0, 8)}-${time.slice(8)}-7` };
  recent.set(now, made);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
  return made;
}

/**
 * A UUID v7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, the next 12 a
 * counter within that millisecond, the rest random. Rows keyed by it are inserted in key order,
 * at the right edge of the primary-key index, instead of at random pages as v4 keys are; and ids
 * this process makes in one millisecond sort in the order they were made (lists ordered by time,
 * then id, show two requests of one millisecond in the order they came; with random bits there
 * they came out either way), also when ids for another millisecond (a caller's own `now`) were
 * made between them. Built on `randomUuid()` (a v4 id drawn from a pool of random bytes): its 62
 * random bits after the variant are kept, the time and counter written before them, the version
 * nibble set to 7; the variant bits are already RFC 9562's. Past the counter's room in one
 * millisecond the order there is the random bits'.
 */
export function uuidV7(now = Date.now()): string {
  const random = randomUuid();
  const at = last?.ms === now ? last : (last = millisecond(now, random));
  if (at.counter < COUNTER_MAX) at.counter++;
  return at.prefix + at.counter.toString(16).padStart(3, '0') + random.slice(18);
}
