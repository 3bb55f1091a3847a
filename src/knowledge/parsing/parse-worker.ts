import { getHeapStatistics } from 'node:v8';
import type { MessagePort } from 'node:worker_threads';
import { HeraldError } from '../../errors.js';
import { packChunks, type ParseAnswer } from './packed-chunks.js';
import { parseDocument, type ParseTask } from './parse-document.js';
import { indexTextOf } from '../text-terms.js';

/** a worker's answer, with the heap its thread holds after the parse (garbage included: what it keeps from the system) */
export interface WorkerAnswer {
  answer: ParseAnswer;
  heapBytes: number;
}

/**
 * Runs in a parse worker thread (the compiled file itself, or parse-worker-entry.mjs from the
 * sources). The chunks go back packed (packed-chunks.ts) over the task's port, their buffer moved,
 * not copied, to the main thread (what a task returns is cloned); without a port (the tests) they
 * are returned.
 */
export default async function parseInWorker(task: ParseTask & { port?: MessagePort }): Promise<WorkerAnswer | undefined> {
  // the parse's time limit runs from here: the thread is up and has the task
  task.port?.postMessage(0);
  const answer = await parseAnswer(task);
  const result = { answer, heapBytes: getHeapStatistics().total_heap_size };
  if (!task.port) return result;
  task.port.postMessage(result, answer instanceof Uint8Array ? [answer.buffer as ArrayBuffer] : []);
  task.port.close();
  return undefined;
}

async function parseAnswer(task: ParseTask): Promise<ParseAnswer> {
  try {
    const { type, chunks } = await parseDocument(task);
    return packChunks(type, chunks, indexTextOf);
  } catch (error) {
    if (error instanceof HeraldError) return { error: { code: error.code, message: error.message, param: error.param } };
    return { error: { code: 'HERALD_INVALID_FIELD', message: 'could not read the file', param: 'file' } };
  }
}
