import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MessagePort } from 'node:worker_threads';
import { HeraldError } from '../../errors.js';
import { packChunks } from './packed-chunks.js';
import { BATCHES_AHEAD, CHUNKS_PER_BATCH } from './parse-messages.js';
import { parseDocument, type ParseTask } from './parse-document.js';
import { indexTextOf } from '../text-terms.js';

/**
 * Runs in a parse worker thread (the compiled file itself, or parse-worker-entry.mjs from the
 * sources): the whole document is typed, extracted and cut first, so every limit is checked before
 * anything is stored; the index forms are then made a batch at a time as the store takes them.
 */
export default async function parseInWorker(task: ParseTask & { port: MessagePort }): Promise<void> {
  const { port } = task;
  port.postMessage(0);
  let credits = BATCHES_AHEAD;
  let granted: (() => void) | undefined;
  port.on('message', () => {
    credits++;
    granted?.();
  });
  const more = async () => {
    while (credits === 0) await new Promise<void>((resolve) => (granted = resolve));
    credits--;
  };
  await sendChunks(task, more);
  // the document's text and chunks are garbage now: collected here, so that the next document's
  // text is not made beside them, and the heap reported is what the worker keeps
  collectGarbage();
  port.postMessage({ heapBytes: getHeapStatistics().total_heap_size });
  port.close();
}

/** the header, then the batches, each once `more` says the store will take it */
async function sendChunks(task: ParseTask & { port: MessagePort }, more: () => Promise<void>): Promise<void> {
  const { port } = task;
  const parsed = await parseOrRefuse(task);
  port.postMessage('error' in parsed ? parsed : { type: parsed.type, count: parsed.chunks.length });
  if ('error' in parsed) return;
  // the text lives on in the chunks (slices of it); the file's bytes are not read again
  forget(task.bytes);
  for (let from = 0; from < parsed.chunks.length; from += CHUNKS_PER_BATCH) {
    await more();
    const packed = packChunks(parsed.chunks.slice(from, from + CHUNKS_PER_BATCH), indexTextOf);
    port.postMessage(packed, [packed.buffer as ArrayBuffer]);
  }
}

async function parseOrRefuse(task: ParseTask) {
  try {
    return await parseDocument(task);
  } catch (error) {
    if (error instanceof HeraldError) return { error: { code: error.code, message: error.message, param: error.param } };
    return { error: { code: 'HERALD_INVALID_FIELD' as const, message: 'could not read the file', param: 'file' } };
  }
}

/** gives the bytes' memory back now (their buffer moved into a copy no one holds), not when the task ends */
function forget(bytes: Uint8Array): void {
  try {
    structuredClone(bytes.buffer, { transfer: [bytes.buffer as ArrayBuffer] });
  } catch {
    // a buffer that cannot be moved is freed with the task
  }
}

/**
 * A full collection now, in this thread only (a worker's isolate is its own): V8 offers it to code
 * only behind --expose-gc, a flag read when a context is made, hence the context made here once.
 */
let gc: (() => void) | undefined;
function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
