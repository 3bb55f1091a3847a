import type { HeraldError } from '../../errors.js';
import type { DocumentType } from './detect-type.js';

/**
 * Chunks per batch a parse worker sends (~0.25 MB packed with their index form), and the batches it
 * may have sent that the store has not taken yet: past them it waits, so a slow store never has a
 * whole document's chunks piled up before it.
 */
export const CHUNKS_PER_BATCH = 128;
export const BATCHES_AHEAD = 2;

/** a parse's refusal, as a worker sends it back */
export type ParseRefusal = { error: { code: HeraldError['code']; message: string; param?: string } };

/** a parse's first answer: what the document is and how many chunks it makes (all within the limits), or the refusal */
export type ParseHeader = { type: DocumentType; count: number } | ParseRefusal;

/**
 * What a worker sends over the task's port, in order: `0` once it has the task (its time limit runs
 * from there), the header, a packed batch of chunks at a time (packed-chunks.ts; its buffer moved,
 * not copied), then `{ heapBytes }`: the heap its thread holds after the parse (garbage included:
 * what it keeps from the system). The main thread answers `1` for each batch the store has taken.
 * Its own file so the main thread speaks it without loading the parsers.
 */
export type WorkerMessage = 0 | ParseHeader | Uint8Array | { heapBytes: number };
