import fs from 'node:fs';
import type { DestinationStream } from 'pino';

/** how much is gathered before a write, and how long a line may wait at most */
const BLOCK_CHARS = 4096;
const MAX_WAIT_MS = 100;

/**
 * Log lines written in blocks: a line waits until 4 KiB have gathered or 100 ms have passed.
 * A write per line would be a system call handed to libuv's thread pool for each access line,
 * the larger part of what a line costs at the default level. Nothing is written while nothing was logged (sonic-boom's
 * own periodic flush writes an empty string every period), and no timer runs then: the wait is
 * armed by a block's first line, so an idle process is not woken ten times a second. What is still
 * gathered when the process exits is written synchronously then; a SIGKILL loses at most the last
 * 100 ms of lines.
 */
export class LogBlocks implements DestinationStream {
  private gathered = '';

  constructor(
    private readonly out: DestinationStream,
    private readonly fd = 1,
  ) {
    watchBlocks(this);
  }

  write(line: string): void {
    if (!this.gathered) flushSoon();
    this.gathered += line;
    if (this.gathered.length >= BLOCK_CHARS) this.flush();
  }

  /**
   * Hands what is gathered to the destination; with `done` (pino's logger.flush(done), as serve
   * calls it before exiting), once the destination has written it out too.
   */
  flush(done?: (error?: Error) => void): void {
    if (this.gathered) {
      const block = this.gathered;
      this.gathered = '';
      this.out.write(block);
    }
    if (!done) return;
    const out = this.out as DestinationStream & { flush?: (done: (error?: Error) => void) => void };
    if (out.flush) out.flush(done);
    else done();
  }

  flushSync(): void {
    if (!this.gathered) return;
    try {
      fs.writeSync(this.fd, this.gathered);
    } catch {
      // stdout already closed: nothing is left to tell
    }
    this.gathered = '';
  }
}

/** one timer and one exit listener for every logger of the process (a test makes hundreds) */
const live = new Set<LogBlocks>();
let waiting: NodeJS.Timeout | undefined;
function watchBlocks(blocks: LogBlocks): void {
  // after the destinations' own exit flush (registered before this one): the older lines go first
  if (live.size === 0) process.once('exit', () => live.forEach((b) => b.flushSync()));
  live.add(blocks);
}

/** every block written out within MAX_WAIT_MS: the timer a first line arms, if none is armed */
function flushSoon(): void {
  waiting ??= setTimeout(() => {
    waiting = undefined;
    live.forEach((b) => b.flush());
  }, MAX_WAIT_MS).unref();
}
