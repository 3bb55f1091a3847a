import { pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import type { Piscina } from 'piscina';
import type { KnowledgeLimits } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import type { ChunkOptions } from './chunk-text.js';
import { documentLimitErrors } from './document-limits.js';
import { installedPath } from '../../utils/install-layout.js';
import { ParseClock, ParseStream, type ParsedDocumentStream } from './parse-stream.js';

/**
 * What a worker thread starts from: compiled, parse-worker.js itself; from the sources, an entry
 * that registers tsx in the thread first (loader hooks are per thread).
 */
const WORKER_ENTRY = pathToFileURL(installedPath('dist/src/knowledge/parsing/parse-worker.js', 'src/knowledge/parsing/parse-worker-entry.mjs')).href;

export type { ParsedDocumentStream } from './parse-stream.js';

/** a document to read */
export interface ParseInput {
  bytes: Uint8Array;
  filename: string;
  chunking: ChunkOptions;
  /** the bytes are the caller's own, used no more: their buffer is moved to the worker (left empty here) instead of copied, when they are the whole of it */
  move?: boolean;
}

/**
 * A worker whose heap is past an eighth of its limit after its parse (and a full collection: the
 * document's text is garbage by then; 32 MB of the default 256) is ended once its parse is done,
 * giving the memory back; smaller ones stay for the next upload until idle for `WORKER_IDLE_MS`,
 * sparing it the start of a worker (~0.2-2 s). Measured after the collection, a worker keeps
 * 16-26 MB (its parsers loaded) whatever it read: the mark catches a parser that holds on to what it read.
 */
export function recycleHeapBytes(workerMemoryMb: number): number {
  return (workerMemoryMb * 2 ** 20) / 8;
}
const WORKER_IDLE_MS = 30_000;

/**
 * `workerMemoryMb` split between V8's generations, so that together they stay within it: a
 * sixteenth for the young one, at least 4 MB (smaller made mammoth markedly slower) and at most
 * 8 MB (what a parse allocates dies young, a batch at a time: a larger young generation is only
 * resident memory).
 */
export function workerResourceLimits(workerMemoryMb: number): { maxYoungGenerationSizeMb: number; maxOldGenerationSizeMb: number } {
  const young = Math.min(8, Math.max(4, Math.floor(workerMemoryMb / 16)));
  return { maxYoungGenerationSizeMb: young, maxOldGenerationSizeMb: workerMemoryMb - young };
}

/**
 * Reads documents in worker threads, so a slow or hostile file costs a worker, never the event
 * loop. Documents wait their turn here, at most `maxQueued` of them (past it: 503, the queue is
 * too long, no fault of the file), and go to piscina only when a worker is free, so that each
 * document's time limit (`parseTimeoutMs`, past it the worker is stopped) counts its own parse,
 * never the parses queued ahead of it nor the start of its thread; and each worker a heap limit (`workerMemoryMb`, its young and old
 * generations together: the parsers' memory is V8 heap, so past it the worker dies, not herald).
 * A parse that left its worker's heap large retires the pool it ran in: its workers end once
 * their parses are done and the next upload starts a fresh pool, so herald does not keep what
 * its largest document took. A pool starts with the first upload after that and all end with
 * `close`: piscina and the parsers (mammoth, unpdf, html-to-text) are loaded then, in the
 * workers, never at start.
 */
export class ParsePool {
  private pool?: Promise<Piscina>;
  /** every pool with workers: the current one and those retired, finishing their parses */
  private readonly pools = new Set<Piscina>();
  /** parses given to a worker */
  private active = 0;
  /** parses waiting for a worker, first come first served: each is handed the slot another frees */
  private readonly waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly limits: KnowledgeLimits) {}

  /** documents waiting for a worker now */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Reads a document and hands it to `consume` once the worker has typed and cut it (every limit
   * checked, nothing refused later but for time or memory), its chunks then coming in batches as
   * the worker makes their index forms, no faster than `consume` takes them. The worker slot is
   * held until `consume` settles; batches it left unread are not made (the worker is stopped).
   */
  async parse<T>(input: ParseInput, consume: (parsed: ParsedDocumentStream) => Promise<T>): Promise<T> {
    await this.takeSlot();
    try {
      const { bytes } = input;
      return await this.parseNow(input, input.move === true && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength, consume);
    } finally {
      this.freeSlot();
    }
  }

  private takeSlot(): Promise<void> | void {
    if (this.active < this.limits.workers) {
      this.active++;
      return;
    }
    if (this.waiting.length >= this.limits.maxQueued) throw parseQueueFull(this.limits.maxQueued);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private freeSlot(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.active--;
  }

  private async parseNow<T>(input: ParseInput, move: boolean, consume: (parsed: ParsedDocumentStream) => Promise<T>): Promise<T> {
    const { maxInflatedEntryBytes, maxTextChars, maxChunks, parseTimeoutMs, workerMemoryMb } = this.limits;
    // one pool however many uploads arrive while piscina is being imported
    const starting = (this.pool ??= this.start());
    const pool = await starting;
    // the time limit starts when the worker says it has the task (not while a thread starts) and
    // stops while the store has its batches to take; the chunks come back on the same port
    const { port1: channel, port2 } = new MessageChannel();
    const abort = new AbortController();
    const stream = new ParseStream(channel, new ParseClock(parseTimeoutMs, () => abort.abort()));
    const task = { bytes: input.bytes, filename: input.filename, chunking: input.chunking, limits: { maxInflatedEntryBytes, maxTextChars, maxChunks, workerMemoryMb }, port: port2 };
    let consumed = false;
    const ran = pool.run(task, { signal: abort.signal, transferList: move ? [port2, input.bytes.buffer as ArrayBuffer] : [port2] }).catch((error: { name?: string; code?: string }) => {
      // stopped because its batches were no longer wanted: not a failure
      if (consumed) return;
      if (error.name === 'AbortError' || error.name === 'TimeoutError') stream.fail(documentLimitErrors.time(parseTimeoutMs));
      else if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') stream.fail(documentLimitErrors.memory(workerMemoryMb));
      else stream.fail(new HeraldError('HERALD_DOCUMENT_UNPROCESSABLE', 'The document could not be read (its parser failed).', { param: 'file', cause: error }));
    });
    try {
      return await consume(await stream.opened());
    } finally {
      consumed = true;
      if (!stream.ended) abort.abort();
      await ran;
      stream.fail(new Error('the parse is over'));
      channel.close();
      if ((stream.heapBytes ?? 0) > recycleHeapBytes(workerMemoryMb)) this.retire(starting, pool);
    }
  }

  /** worker threads alive now, in every pool */
  get workers(): number {
    let threads = 0;
    for (const pool of this.pools) threads += pool.threads.length;
    return threads;
  }

  async close(): Promise<void> {
    for (const waiter of this.waiting.splice(0)) waiter.reject(new HeraldError('HERALD_UNAVAILABLE', 'herald is stopping; the document was not read.'));
    const current = this.pool;
    this.pool = undefined;
    await current?.catch(() => undefined);
    await Promise.all([...this.pools].map((pool) => pool.destroy().catch(() => undefined)));
    this.pools.clear();
  }

  private async start(): Promise<Piscina> {
    const { Piscina } = await import('piscina');
    const pool = new Piscina({
      filename: WORKER_ENTRY,
      minThreads: 0,
      maxThreads: this.limits.workers,
      idleTimeout: WORKER_IDLE_MS,
      // a retired pool waits for its parses, each ended by its own time limit
      closeTimeout: this.limits.parseTimeoutMs + 1_000,
      resourceLimits: workerResourceLimits(this.limits.workerMemoryMb),
    });
    this.pools.add(pool);
    return pool;
  }

  private retire(starting: Promise<Piscina>, pool: Piscina): void {
    if (this.pool !== starting) return; // retired by another parse already, or closing
    this.pool = undefined;
    void pool
      .close()
      .catch(() => undefined)
      .finally(() => this.pools.delete(pool));
  }
}

/** the queue is too long: the server's state, not the file's fault, so a retry may succeed */
export function parseQueueFull(maxQueued: number): HeraldError {
  return new HeraldError('HERALD_UNAVAILABLE', `${maxQueued} documents are already waiting for a parse worker (platform.knowledge.maxQueued). Retry later.`, {
    headers: { 'Retry-After': '5' },
  });
}
