import type { KnowledgeLimits } from '../../config/schema.js';
import { HeraldError } from '../../errors.js';
import { chunkText, type ChunkOptions } from './chunk-text.js';
import { documentLimitErrors } from './document-limits.js';
import { detectType, type DocumentType } from './detect-type.js';
import { extractText } from './extract-text.js';
import { checkParseMemory } from './parse-memory.js';
import { countStartTags, surveyZip } from './zip-entries.js';

/** `workerMemoryMb`: the heap the parse runs within (a worker's); without it nothing is refused for memory before parsing */
export type ParseLimits = Pick<KnowledgeLimits, 'maxInflatedEntryBytes' | 'maxTextChars' | 'maxChunks'> & Partial<Pick<KnowledgeLimits, 'workerMemoryMb'>>;

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
  if (detected.type === 'docx') checkParseMemory('docx', (await surveyZip(bytes, limits.maxInflatedEntryBytes)).xmlElements, limits.workerMemoryMb);
  if (detected.type === 'html') checkParseMemory('html', countStartTags(bytes), limits.workerMemoryMb);
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
