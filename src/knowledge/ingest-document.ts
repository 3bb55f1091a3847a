import { createHash } from 'node:crypto';
import { HeraldError } from '../errors.js';
import { chunkText, type ChunkOptions } from './chunk-text.js';
import { detectType, documentTypes } from './detect-type.js';
import { extractText } from './extract-text.js';
import type { KnowledgeDocument, KnowledgeIndex } from './knowledge-index.js';

export interface IngestInput {
  agentId: string;
  filename: string;
  bytes: Uint8Array;
  chunking: ChunkOptions;
  metadata?: Record<string, unknown> | null;
}

/**
 * Adds one file to an agent's knowledge base: type by content, text, chunks, index.
 * The same bytes for the same agent return the document already there (`created: false`).
 */
export async function ingestDocument(index: KnowledgeIndex, input: IngestInput): Promise<{ document: KnowledgeDocument; created: boolean }> {
  const sha256 = createHash('sha256').update(input.bytes).digest('hex');
  const existing = index.findByHash(input.agentId, sha256);
  if (existing) return { document: existing, created: false };

  const detected = detectType(input.bytes, input.filename);
  if (!detected.ok) {
    throw new HeraldError('HERALD_UNSUPPORTED_MEDIA_TYPE', `unsupported file type: ${detected.reason}; accepted: txt, md, html, csv, json, pdf, docx`, { param: 'file' });
  }
  let text: string;
  try {
    text = await extractText(detected.type, input.bytes, detected.text);
  } catch (error) {
    throw new HeraldError('HERALD_INVALID_FIELD', `could not read the ${detected.type.toUpperCase()} file: ${(error as Error).message}`, { param: 'file', cause: error });
  }
  const chunks = chunkText(text, input.chunking);
  if (!chunks.length) throw new HeraldError('HERALD_INVALID_FIELD', 'the file holds no text to index', { param: 'file' });
  return index.add(
    { agentId: input.agentId, filename: input.filename, bytes: input.bytes.byteLength, mimeType: documentTypes[detected.type], sha256, metadata: input.metadata ?? null },
    chunks,
  );
}
