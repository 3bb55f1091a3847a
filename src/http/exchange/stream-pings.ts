/** an open stream's place among the streams its ticker pings (`stopPings` frees it) */
export interface PingSlot {
  readonly ping: () => void;
  readonly ticker: PingTicker;
  /** where it is in its ticker's list, moved when another slot is freed; -1 once freed */
  index: number;
}

/**
 * The `: ping` comments of the open SSE streams, sent by one timer per period for all of them:
 * a timer per stream (made, put in Node's timer lists, taken out again) cost more than the rest
 * of a short stream's framing. A stream is pinged at every tick while it is open: the first time
 * within one period of its start, then once a period. A tick that finds no stream stops the timer,
 * which never keeps the process up (the streams' sockets do).
 *
 * The streams are an array, a freed place filled by the last one, not a Set: a Set that every
 * stream enters and leaves is rehashed every few streams, and V8 links each replaced hash table
 * to the next (for iterators still on it). Once a table reached the old generation, it kept every
 * later table, and the streams in them, alive through each young-generation collection until a
 * full one (docs/development.md, "No request passes through a long-lived Set or Map").
 */
class PingTicker {
  private readonly slots: PingSlot[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly ms: number) {}

  add(ping: () => void): PingSlot {
    const slot: PingSlot = { ping, ticker: this, index: this.slots.length };
    this.slots.push(slot);
    this.timer ??= setInterval(this.tick, this.ms).unref();
    return slot;
  }

  remove(slot: PingSlot): void {
    if (slot.index < 0) return;
    const last = this.slots.pop()!;
    if (last !== slot) {
      this.slots[slot.index] = last;
      last.index = slot.index;
    }
    slot.index = -1;
  }

  private readonly tick = () => {
    if (!this.slots.length) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    // a copy: a ping that ends its stream frees a place while the others are pinged; a stream a
    // ping ended before its own turn in this tick is not pinged
    for (const slot of this.slots.slice()) if (slot.index >= 0) slot.ping();
  };
}

const tickers = new Map<number, PingTicker>();

/** `ping` called once every `ms` until `stopPings` with the slot returned */
export function startPings(ms: number, ping: () => void): PingSlot {
  let ticker = tickers.get(ms);
  if (!ticker) tickers.set(ms, (ticker = new PingTicker(ms)));
  return ticker.add(ping);
}

export function stopPings(slot: PingSlot): void {
  slot.ticker.remove(slot);
}
