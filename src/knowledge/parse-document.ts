import type { KnowledgeLimits } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import { chunkText, type ChunkOptions } from './chunk-text.js';
import { documentLimitErrors } from './document-limits.js';
import { detectType, type DocumentType } from './detect-type.js';
import { extractText } from './extract-text.js';
import { surveyZip } from './zip-entries.js';

/** `workerMemoryMb`: the heap the parse runs within (a worker's); without it nothing is refused for memory before parsing */
export type ParseLimits = Pick<KnowledgeLimits, 'maxInflatedEntryBytes' | 'maxTextChars' | 'maxChunks'> & Partial<Pick<KnowledgeLimits, 'workerMemoryMb'>>;

/**
 * The least heap mammoth takes per XML element of a DOCX (it builds a DOM, then its own document
 * model): measured 0.8 KB for empty paragraphs, 0.9 KB for breaks and tabs, 1.2 KB for runs of
 * text, table cells and styled paragraphs, 1.7 KB with many attributes. Taken below all of them,
 * so only a document that surely cannot be read within `workerMemoryMb` is refused before
 * parsing; the worker's heap limit decides the rest.
 */
const DOCX_HEAP_BYTES_PER_ELEMENT = 768;

export interface ParseTask {
  bytes: Uint8Array;
  filename: string;
  chunking: ChunkOptions;
  limits: ParseLimits;
}

export interface ParsedDocument {
  type: DocumentType;
  chunks: string[];
}

/**
 * A document's type, text and chunks, within the limits: archives are surveyed before a parser
 * opens them, text and chunks are counted as they are produced. CPU-heavy and possibly huge, so
 * herald runs it in a worker thread (parse-worker.ts); it is a plain function for the tests.
 */
export async function parseDocument(task: ParseTask): Promise<ParsedDocument> {
  const { bytes, limits } = task;
  const detected = detectType(bytes, task.filename);
  if (!detected.ok) {
    throw new HeraldError('HERALD_UNSUPPORTED_MEDIA_TYPE', `unsupported file type: ${detected.reason}; accepted: txt, md, html, csv, json, pdf, docx`, { param: 'file' });
  }
  if (detected.type === 'docx') {
    const { xmlElements } = await surveyZip(bytes, limits.maxInflatedEntryBytes);
    const neededMb = Math.ceil((xmlElements * DOCX_HEAP_BYTES_PER_ELEMENT) / 2 ** 20);
    if (limits.workerMemoryMb !== undefined && neededMb > limits.workerMemoryMb) throw documentLimitErrors.memoryEstimate(limits.workerMemoryMb, xmlElements, neededMb);
  }
  let text: string;
  try {
    text = await extractText(detected.type, bytes, detected.text, limits.maxTextChars);
  } catch (error) {
    if (error instanceof HeraldError) throw error;
    throw new HeraldError('HERALD_INVALID_FIELD', `could not read the ${detected.type.toUpperCase()} file: ${(error as Error).message}`, { param: 'file' });
  }
  if (text.length > limits.maxTextChars) throw documentLimitErrors.text(limits.maxTextChars);
  const chunks = chunkText(text, task.chunking, limits.maxChunks);
  if (chunks.length > limits.maxChunks) {
    throw documentLimitErrors.chunks(limits.maxChunks);
  }
  if (!chunks.length) throw new HeraldError('HERALD_INVALID_FIELD', 'the file holds no text to index', { param: 'file' });
  return { type: detected.type, chunks };
}
