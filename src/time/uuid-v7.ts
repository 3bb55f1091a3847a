import { randomUuid } from './random-uuid.js';

/** the millisecond of the last id made, and the counter its ids took (RFC 9562 §6.2, method 1) */
let lastMs = -1;
let counter = 0;
/** the ids' text up to the counter for `lastMs` (a request makes three ids, mostly in one millisecond with its neighbours') */
let prefix = '';
/** the counter's 12 bits (rand_a); it starts at a random value below half, so a millisecond has room for 2,048 ids at least */
const COUNTER_MAX = 0xfff;

/**
 * A UUID v7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, the next 12 a
 * counter within that millisecond, the rest random. Rows keyed by it are inserted in key order,
 * at the right edge of the primary-key index, instead of at random pages as v4 keys are; and ids
 * this process makes in one millisecond sort in the order they were made (lists ordered by time,
 * then id, show two requests of one millisecond in the order they came; with random bits there
 * they came out either way). Built on `randomUuid()` (a v4 id drawn from a pool of random bytes):
 * its 62 random bits after the variant are kept, the time and counter written before them, the
 * version nibble set to 7; the variant bits are already RFC 9562's. Past the counter's room in one
 * millisecond the order there is the random bits'; an id for an earlier millisecond than the last
 * (a caller's own `now`) starts that millisecond's counter afresh.
 */
export function uuidV7(now = Date.now()): string {
  const random = randomUuid();
  if (now === lastMs && counter < COUNTER_MAX) counter++;
  else if (now !== lastMs) {
    lastMs = now;
    counter = Number.parseInt(random.slice(15, 18), 16) & 0x7ff;
    const time = now.toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8)}-7`;
  }
  return prefix + counter.toString(16).padStart(3, '0') + random.slice(18);
}
