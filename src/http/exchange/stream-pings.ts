/**
 * The `: ping` comments of the open SSE streams, sent by one timer per period for all of them:
 * a timer per stream (made, put in Node's timer lists, taken out again) cost more than the rest
 * of a short stream's framing. A stream is pinged at every tick while it is open: the first time
 * within one period of its start, then once a period. A tick that finds no stream stops the timer,
 * which never keeps the process up (the streams' sockets do).
 */
class PingTicker {
  private readonly streams = new Set<() => void>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly ms: number) {}

  add(ping: () => void): void {
    this.streams.add(ping);
    this.timer ??= setInterval(this.tick, this.ms).unref();
  }

  delete(ping: () => void): void {
    this.streams.delete(ping);
  }

  private readonly tick = () => {
    if (this.streams.size) for (const ping of this.streams) ping();
    else {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  };
}

const tickers = new Map<number, PingTicker>();

/** `ping` called once every `ms` until `stopPings` */
export function startPings(ms: number, ping: () => void): void {
  let ticker = tickers.get(ms);
  if (!ticker) tickers.set(ms, (ticker = new PingTicker(ms)));
  ticker.add(ping);
}

export function stopPings(ms: number, ping: () => void): void {
  tickers.get(ms)?.delete(ping);
}
