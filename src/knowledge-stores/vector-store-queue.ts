import { HeraldError } from '../errors.js';

/** the limits of the files a process has in progress, and how many it reads at once */
export interface FileQueueLimits {
  /** files read at once (platform.knowledge.workers): only these have their bytes loaded */
  concurrency: number;
  /** platform.knowledge.maxFilesInProgressPerKey */
  perKey: number;
  /** platform.knowledge.maxFilesInProgress */
  total: number;
}

/** what a refused addition is told to wait: about one file's parse */
const RETRY_AFTER_SECONDS = 5;

/**
 * The vector store files this process has in progress, by the API key that added them: admitted
 * up to a limit per key and one in total (past either, 429 with Retry-After naming it), and
 * worked `concurrency` at a time, first come first served. An entry is only a name until its turn,
 * so a file's bytes are loaded by the work it is given to, never while it waits.
 */
export class FileQueue<T> {
  private readonly byKey = new Map<string, number>();
  private total = 0;
  private active = 0;
  private readonly waiting: { item: T; key: string }[] = [];
  private idle?: { promise: Promise<void>; resolve: () => void };

  constructor(
    private readonly limits: FileQueueLimits,
    private readonly work: (item: T) => Promise<void>,
  ) {}

  /** files in progress: waiting or being worked */
  get size(): number {
    return this.total;
  }

  /**
   * Holds `count` places for `key`'s files, or refuses them all: 429 naming the limit. Each place
   * is then given to `push`, or back with `release`.
   */
  reserve(key: string, count: number): void {
    if (!count) return;
    const mine = this.byKey.get(key) ?? 0;
    if (mine + count > this.limits.perKey) {
      throw refused(`The API key "${key}" has ${mine} files in progress in vector stores; platform.knowledge.maxFilesInProgressPerKey is ${this.limits.perKey}.`);
    }
    if (this.total + count > this.limits.total) {
      throw refused(`${this.total} files are in progress in vector stores; platform.knowledge.maxFilesInProgress is ${this.limits.total}.`);
    }
    this.byKey.set(key, mine + count);
    this.total += count;
  }

  /** gives back places held and not used */
  release(key: string, count: number): void {
    if (!count) return;
    const left = (this.byKey.get(key) ?? 0) - count;
    if (left > 0) this.byKey.set(key, left);
    else this.byKey.delete(key);
    this.total -= count;
  }

  /** queues an item in a place `reserve` held for `key` */
  push(item: T, key: string): void {
    this.waiting.push({ item, key });
    this.next();
  }

  /** queues what a previous process left in progress: admitted whatever the limits (it is stored already) */
  resume(item: T): void {
    this.byKey.set('', (this.byKey.get('') ?? 0) + 1);
    this.total++;
    this.push(item, '');
  }

  /** drops what waits (its places given back) and resolves once the items being worked are done */
  async drain(): Promise<void> {
    for (const { key } of this.waiting.splice(0)) this.release(key, 1);
    if (!this.active) return;
    if (!this.idle) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idle = { promise, resolve };
    }
    await this.idle.promise;
  }

  private next(): void {
    while (this.active < this.limits.concurrency && this.waiting.length) {
      const { item, key } = this.waiting.shift()!;
      this.active++;
      void this.work(item)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          this.release(key, 1);
          this.next();
          if (!this.active && this.idle) {
            this.idle.resolve();
            this.idle = undefined;
          }
        });
    }
  }
}

function refused(message: string): HeraldError {
  return new HeraldError('HERALD_RATE_LIMITED', `${message} Retry when some are processed.`, { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } });
}
