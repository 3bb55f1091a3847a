/**
 * Items pushed by callbacks (a socket's data listener, a turn's delta callback), taken by an
 * async generator that waits only when nothing is queued: no promise per item, as `for await`
 * over a stream or a generator chain would cost on the path of every streamed token.
 */
export class PushedItems<T> {
  private queue: T[] = [];
  private wake?: () => void;

  push(item: T): void {
    this.queue.push(item);
    this.notify();
  }

  /** wakes the reader to look again (an item, the end or a failure came) */
  notify(): void {
    const waiting = this.wake;
    this.wake = undefined;
    waiting?.();
  }

  /** what is queued now, oldest first (none: wait for arrival()) */
  take(): T[] {
    const queued = this.queue;
    if (queued.length) this.queue = [];
    return queued;
  }

  /** resolves at the next push or notify */
  arrival(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }
}
