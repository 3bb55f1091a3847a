import { pathToFileURL } from 'node:url';
import type { Piscina } from 'piscina';
import type { KnowledgeLimits } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import type { ChunkOptions } from './chunk-text.js';
import { documentLimitErrors } from './document-limits.js';
import { installedPath } from '../gateway/install-layout.js';
import { unpackChunks, type ParseAnswer } from './packed-chunks.js';

/**
 * What a worker thread starts from: compiled, parse-worker.js itself; from the sources, an entry
 * that registers tsx in the thread first (loader hooks are per thread).
 */
const WORKER_ENTRY = pathToFileURL(installedPath('dist/src/knowledge/parse-worker.js', 'src/knowledge/parse-worker-entry.mjs')).href;

export type ParsedChunks = ReturnType<typeof unpackChunks>;

/**
 * Reads documents in worker threads, so a slow or hostile file costs a worker, never the event
 * loop: each worker has a heap limit (`workerMemoryMb`; past it the worker dies, not herald) and
 * each document a time limit (`parseTimeoutMs`, counted from when it is queued; past it the worker
 * is stopped). The pool starts with the first upload and ends with `close`: piscina and the
 * parsers (mammoth, unpdf, html-to-text) are loaded then, in the workers, never at start.
 */
export class ParsePool {
  private pool?: Promise<Piscina>;

  constructor(private readonly limits: KnowledgeLimits) {}

  async parse(bytes: Uint8Array, filename: string, chunking: ChunkOptions): Promise<ParsedChunks> {
    const { maxInflatedEntryBytes, maxTextChars, maxChunks, parseTimeoutMs, workerMemoryMb } = this.limits;
    // one pool however many uploads arrive while piscina is being imported
    const pool = await (this.pool ??= import('piscina').then(
      ({ Piscina }) =>
        new Piscina({
          filename: WORKER_ENTRY,
          minThreads: 0,
          maxThreads: this.limits.workers,
          idleTimeout: 30_000,
          resourceLimits: { maxOldGenerationSizeMb: workerMemoryMb },
        }),
    ));
    const task = { bytes, filename, chunking, limits: { maxInflatedEntryBytes, maxTextChars, maxChunks } };
    let answer: ParseAnswer;
    try {
      answer = await pool.run(task, { signal: AbortSignal.timeout(parseTimeoutMs) });
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
    const pool = this.pool;
    this.pool = undefined;
    await (await pool)?.destroy();
  }
}
