import os from 'node:os';
import { pathToFileURL } from 'node:url';
import type { Piscina } from 'piscina';
import { installedPath } from '../../utils/install-layout.js';
import { armDeadline, newTransformClock, TRANSFORM_LOAD_LIMIT_MS } from './transform-clock.js';
import { transformFailure, type LocatedTransform, type TransformContext, type TransformRunner } from './transform-runner.js';
import type { TransformAnswer, TransformTask } from './transform-worker.js';

/**
 * What a worker thread starts from: compiled, transform-worker.js itself; from the sources, an
 * entry that registers tsx in the thread first (loader hooks are per thread).
 */
const WORKER_ENTRY = pathToFileURL(installedPath('dist/src/mappings/transforms/transform-worker.js', 'src/mappings/transforms/transform-worker-entry.mjs')).href;

/**
 * Runs transforms in worker threads, so a transform that loops or allocates without end costs a
 * worker, never the event loop the gateway answers on. Each call has its time limit, counted
 * from when its worker calls the function (transform-clock.ts); past it, the worker is
 * terminated and replaced (`TransformTimeout`). Each worker has a heap limit
 * (`hooks.transformMemoryMb`); past it the worker dies, not herald (`TransformMemory`). The pool
 * starts with the first transform loaded and ends with `close`; a gateway without transforms
 * never starts it.
 */
export class TransformPool implements TransformRunner {
  private pool?: Promise<Piscina>;
  private closed = false;

  constructor(private readonly memoryMb: number) {}

  async check(module: LocatedTransform, timeoutMs: number): Promise<void> {
    await this.run(module, undefined, timeoutMs);
  }

  call(module: LocatedTransform, ctx: TransformContext, timeoutMs: number): Promise<unknown> {
    return this.run(module, ctx, timeoutMs);
  }

  private async run(module: LocatedTransform, ctx: TransformContext | undefined, timeoutMs: number): Promise<unknown> {
    // a request still in flight while herald stops must not start the pool again
    if (this.closed) throw new Error('the transform pool is closed (herald is stopping)');
    // one pool however many calls arrive while piscina is being imported
    const pool = await (this.pool ??= import('piscina').then(
      ({ Piscina }) =>
        new Piscina({
          filename: WORKER_ENTRY,
          // one worker stays warm: a hook's first call after a quiet spell does not wait for a thread to start
          minThreads: 1,
          maxThreads: Math.max(2, os.availableParallelism()),
          idleTimeout: 60_000,
          resourceLimits: { maxOldGenerationSizeMb: this.memoryMb },
        }),
    ));
    const clock = newTransformClock();
    const task: TransformTask = { file: module.file, version: module.version, exportName: module.exportName, ctx, clock };
    const stop = new TaskStop();
    let overran: 'loading' | 'calling' | undefined;
    const deadline = armDeadline(clock, timeoutMs, (phase) => {
      overran = phase;
      stop.abort();
    });
    let answer: TransformAnswer;
    try {
      answer = await pool.run(task, { signal: stop });
    } catch (error) {
      const { code } = error as { code?: string };
      if (overran === 'calling') throw transformFailure('TransformTimeout', `transform timed out after ${timeoutMs}ms`);
      if (overran === 'loading') throw transformFailure('TransformTimeout', `transform module still loading after ${TRANSFORM_LOAD_LIMIT_MS}ms`);
      if (code === 'ERR_WORKER_OUT_OF_MEMORY') throw transformFailure('TransformMemory', `transform ran out of memory (hooks.transformMemoryMb: ${this.memoryMb})`);
      // the worker died otherwise: a result that cannot be cloned back (a function), process.exit()
      throw error;
    } finally {
      deadline.cancel();
    }
    if ('error' in answer) throw Object.assign(new Error(answer.error.message), { name: answer.error.name, frames: answer.error.frames });
    return answer.value;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await (await pool)?.destroy();
  }
}


/**
 * The abort signal piscina takes (its event-emitter form): stopping a task terminates the worker
 * running it. Lighter than an AbortController, which Node 20 makes in microseconds, for every call.
 */
class TaskStop {
  aborted = false;
  private listener: (() => void) | undefined;

  once(_event: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  off(): void {
    this.listener = undefined;
  }

  removeListener(): void {
    this.listener = undefined;
  }

  abort(): void {
    this.aborted = true;
    this.listener?.();
  }
}
