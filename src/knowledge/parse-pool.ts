import { Piscina } from 'piscina';
import type { KnowledgeLimits } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import type { ChunkOptions } from './chunk-text.js';
import { documentLimitErrors } from './document-limits.js';
import { unpackChunks, type ParseAnswer } from './parse-worker.js';

export type ParsedChunks = ReturnType<typeof unpackChunks>;

/**
 * Reads documents in worker threads, so a slow or hostile file costs a worker, never the event
 * loop: each worker has a heap limit (`workerMemoryMb`; past it the worker dies, not herald) and
 * each document a time limit (`parseTimeoutMs`, counted from when it is queued; past it the worker
 * is stopped). The pool starts with the first upload and ends with `close`.
 */
export class ParsePool {
  private pool?: Piscina;

  constructor(private readonly limits: KnowledgeLimits) {}

  async parse(bytes: Uint8Array, filename: string, chunking: ChunkOptions): Promise<ParsedChunks> {
    const { maxInflatedEntryBytes, maxTextChars, maxChunks, parseTimeoutMs, workerMemoryMb } = this.limits;
    this.pool ??= new Piscina({
      filename: new URL('./parse-worker-entry.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: this.limits.workers,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: workerMemoryMb },
    });
    const task = { bytes, filename, chunking, limits: { maxInflatedEntryBytes, maxTextChars, maxChunks } };
    let answer: ParseAnswer;
    try {
      answer = await this.pool.run(task, { signal: AbortSignal.timeout(parseTimeoutMs) });
    } catch (error) {
      const { name, code } = error as { name?: string; code?: string };
      if (name === 'AbortError' || name === 'TimeoutError') throw documentLimitErrors.time(parseTimeoutMs);
      if (code === 'ERR_WORKER_OUT_OF_MEMORY') throw documentLimitErrors.memory(workerMemoryMb);
      throw new HeraldError('HERALD_DOCUMENT_UNPROCESSABLE', 'The document could not be read (its parser failed).', { param: 'file', cause: error });
    }
    if (!(answer instanceof Uint8Array)) throw new HeraldError(answer.error.code, answer.error.message, { param: answer.error.param });
    return unpackChunks(answer);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}
