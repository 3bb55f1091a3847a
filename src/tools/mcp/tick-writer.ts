import type { Writable } from 'node:stream';

interface Waiting {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Writes to a stream, every write asked for in the same tick joined into one: a round's calls to a
 * stdio server are sent in the same tick, and each write to a pipe is a system call, which costs
 * herald more CPU than the message it carries, so a round of n calls is one write, not n. Order
 * is kept; each write's promise settles as the joined write does (written, or once the stream
 * drained), or fails when the stream is gone by then.
 */
export class TickWriter {
  private queued: string[] = [];
  private waiting: Waiting[] = [];

  constructor(private readonly stream: () => Writable | undefined) {}

  write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      // once the code running now is done (in a promise job: once the jobs queued with it are): a round's calls are all sent by then
      if (!this.queued.length) process.nextTick(this.flush);
      this.queued.push(text);
      this.waiting.push({ resolve, reject });
    });
  }

  /** writes what is queued now (also before the stream ends, so nothing queued is written after its end) */
  readonly flush = (): void => {
    if (!this.queued.length) return;
    const text = this.queued.length === 1 ? this.queued[0]! : this.queued.join('');
    const waiting = this.waiting;
    this.queued = [];
    this.waiting = [];
    const stream = this.stream();
    if (!stream || stream.destroyed || stream.writableEnded) {
      const error = new Error('Not connected');
      for (const w of waiting) w.reject(error);
      return;
    }
    const settle = () => {
      for (const w of waiting) w.resolve();
    };
    if (stream.write(text)) settle();
    else stream.once('drain', settle);
  };
}
