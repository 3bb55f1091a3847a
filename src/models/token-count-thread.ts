import { Worker } from 'node:worker_threads';
import type { TokenCountAnswer, TokenCountTask, TokenEncoding } from './token-count-worker.js';

interface Waiting {
  resolve(counts: number[]): void;
  reject(error: Error): void;
}

/**
 * The thread that counts tokens (token-count-worker.ts), started by the first count and ended
 * after `idleMs` without one, giving back the tokenizers' tables (tens of MB). Counts are rare (a
 * stream the client dropped, a provider without usage), so one thread is enough. Starting it
 * costs some 340 ms of CPU (the tables loaded), so it waits ten minutes for the next count: a
 * gateway whose clients drop a stream every few minutes would otherwise load them again for each. It holds the
 * process open only while a count is owed: an idle one never keeps a command from exiting. A
 * thread that dies (out of memory, a crash) fails the counts it owed; the next count starts another.
 */
export class TokenCountThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private idle?: NodeJS.Timeout;

  constructor(
    private readonly entry: URL,
    private readonly idleMs = 600_000,
  ) {}

  /** each text's tokens in `encoding`, in order */
  count(encoding: TokenEncoding, texts: string[]): Promise<number[]> {
    const worker = this.worker ?? this.start();
    clearTimeout(this.idle);
    if (this.waiting.size === 0) worker.ref();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, encoding, texts } satisfies TokenCountTask);
    });
  }

  /** whether a thread is running now */
  get running(): boolean {
    return this.worker !== undefined;
  }

  private start(): Worker {
    // none of this process's node flags: the entry registers what it needs itself (a flag such as
    // --input-type, given to a `node -e` script, would refuse to load a file)
    const worker = new Worker(this.entry, { execArgv: [] });
    this.worker = worker;
    worker.on('message', (answer: TokenCountAnswer) => {
      const waiting = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if ('counts' in answer) waiting?.resolve(answer.counts);
      else waiting?.reject(new Error(`token count failed: ${answer.error}`));
      if (this.waiting.size === 0) this.rest(worker);
    });
    worker.on('error', (error) => this.ended(worker, error));
    worker.on('exit', (code) => this.ended(worker, new Error(`the token-count thread exited (code ${code})`)));
    return worker;
  }

  /** nothing owed: the thread lets the process exit, and ends if no count comes for `idleMs` */
  private rest(worker: Worker): void {
    worker.unref();
    this.idle = setTimeout(() => void worker.terminate(), this.idleMs).unref();
  }

  private ended(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    clearTimeout(this.idle);
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
