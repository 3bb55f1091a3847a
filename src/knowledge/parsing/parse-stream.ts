import type { MessagePort } from 'node:worker_threads';
import { HeraldError } from '../../errors.js';
import type { DocumentType } from './detect-type.js';
import { unpackChunks, type PackedChunks } from './packed-chunks.js';
import { BATCHES_AHEAD, type WorkerMessage } from './parse-messages.js';

/** A document as its parse goes: what it is, how many chunks it makes, and its chunks in batches as they come. */
export interface ParsedDocumentStream {
  type: DocumentType;
  count: number;
  /** read once; each batch taken lets the worker make another */
  batches: AsyncIterable<PackedChunks>;
}

/**
 * A parse's time limit, counted only while its worker works: not while the worker waits for the
 * store to take the batches it has made (the store's pace is not the file's fault).
 */
export class ParseClock {
  private left: number;
  private timer?: NodeJS.Timeout;
  private since = 0;
  private stopped = false;

  constructor(
    ms: number,
    private readonly expire: () => void,
  ) {
    this.left = ms;
  }

  run(): void {
    if (this.timer || this.stopped) return;
    this.since = Date.now();
    this.timer = setTimeout(this.expire, Math.max(0, this.left));
  }

  pause(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.left -= Date.now() - this.since;
  }

  stop(): void {
    this.pause();
    this.stopped = true;
  }
}

/**
 * The main thread's end of one parse's port (parse-worker.ts says what comes over it): the header
 * awaited, then the batches queued as they arrive, at most BATCHES_AHEAD of them, until the
 * consumer takes them; a failure (the worker stopped, out of time or memory) reaches whichever is
 * awaited.
 */
export class ParseStream {
  /** the thread's heap after the parse, once it has said so */
  heapBytes?: number;
  private header?: { type: DocumentType; count: number };
  private readonly queue: Uint8Array[] = [];
  private failure?: Error;
  private wake?: () => void;

  constructor(
    private readonly port: MessagePort,
    private readonly clock: ParseClock,
  ) {
    port.on('message', (message: WorkerMessage) => this.receive(message));
  }

  /** the worker's stream has ended, all its batches sent */
  get ended(): boolean {
    return this.heapBytes !== undefined;
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.clock.stop();
    this.notify();
  }

  /** what the document is, once the worker has typed and cut it (or its refusal, thrown) */
  async opened(): Promise<ParsedDocumentStream> {
    while (!this.header) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return { ...this.header, batches: this.batches() };
  }

  private async *batches(): AsyncGenerator<PackedChunks> {
    for (;;) {
      const packed = this.queue.shift();
      if (packed) {
        // one more batch may be made while this one is written
        this.port.postMessage(1);
        if (!this.ended) this.clock.run();
        yield unpackChunks(packed);
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private receive(message: WorkerMessage): void {
    if (message === 0) this.clock.run();
    else if (message instanceof Uint8Array) {
      this.queue.push(message);
      if (this.queue.length >= BATCHES_AHEAD) this.clock.pause();
    } else if ('heapBytes' in message) {
      this.heapBytes = message.heapBytes;
      this.clock.stop();
    } else if ('error' in message) this.fail(new HeraldError(message.error.code, message.error.message, { param: message.error.param }));
    else this.header = message;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
