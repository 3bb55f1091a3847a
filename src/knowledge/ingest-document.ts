import { isDeepStrictEqual } from 'node:util';
import { createHash } from 'node:crypto';
import { HeraldError } from '../errors.js';
import type { ChunkOptions } from './parsing/chunk-text.js';
import { documentTypes } from './parsing/detect-type.js';
import type { KnowledgeDocument, KnowledgeIndex } from './knowledge-index.js';
import type { ParsePool } from './parsing/parse-pool.js';

const HASH_SLICE_BYTES = 2 ** 20;

export interface IngestInput {
  agentId: string;
  filename: string;
  bytes: Uint8Array;
  chunking: ChunkOptions;
  /** whether the caller chose the chunking (else it is the default) */
  chunkingGiven?: boolean;
  /** undefined: none given (an existing document keeps its own) */
  metadata?: Record<string, unknown> | null;
  /** the bytes are the caller's own copy, used no more: moved to the parse worker, not copied */
  moveBytes?: boolean;
}

/** `created`: a new document; `updated`: the file was there and took the metadata given */
export type IngestOutcome = { document: KnowledgeDocument; created: boolean; updated?: boolean };

/**
 * Adds one file to an agent's knowledge base: type by content, text, chunks and their index form
 * (all in a parse worker, under the knowledge limits), stored as the worker makes them. The event
 * loop only hashes and stores.
 *
 * The same bytes for the same agent are one document: uploading them again returns it
 * (`created: false`), with the metadata given this time when it differs (`updated: true`). Its
 * chunks were cut when it was first added: a chunking chosen again is refused
 * (HERALD_DOCUMENT_EXISTS, naming the document to delete first), never silently ignored.
 * Uploaded again while the first upload is still being read and stored, they wait for it and are
 * then such an upload again (or, if it failed, the first): never answered with a document half
 * written, never stored twice.
 */
export async function ingestDocument(index: KnowledgeIndex, parser: ParsePool, input: IngestInput): Promise<IngestOutcome> {
  const sha256 = await sha256Of(input.bytes);
  // the same bytes being read for the same owner in this process: waited for, then found whole
  return index.ingestAlone(input.agentId, sha256, async () => {
    const existing = await index.findByHash(input.agentId, sha256);
    const again = existing && (await reupload(index, existing, input));
    if (again) return again;
    const bytes = input.bytes.byteLength;
    // the chunks are stored batch by batch as the worker makes them, each decoded as it is written
    const added = await parser.parse({ bytes: input.bytes, filename: input.filename, chunking: input.chunking, move: input.moveBytes }, (parsed) =>
      index.add({ agentId: input.agentId, filename: input.filename, bytes, mimeType: documentTypes[parsed.type], sha256, metadata: input.metadata ?? null }, parsed.batches),
    );
    // another replica stored the same bytes first (the store waited for it): an upload again of that document
    return added.created ? added : ((await reupload(index, added.document, input)) ?? added);
  });
}

/**
 * The bytes' SHA-256, a megabyte per event-loop turn: a few milliseconds each, and no copy of the
 * file (WebCrypto's digest copies its input whole first).
 */
async function sha256Of(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let from = 0; from < bytes.byteLength; from += HASH_SLICE_BYTES) {
    if (from > 0) await new Promise((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(from, from + HASH_SLICE_BYTES));
  }
  return hash.digest('hex');
}

/** the outcome of uploading a stored file again; undefined when it was deleted meanwhile (the upload then adds it anew) */
async function reupload(index: KnowledgeIndex, existing: KnowledgeDocument, input: IngestInput): Promise<IngestOutcome | undefined> {
  if (input.chunkingGiven) {
    throw new HeraldError(
      'HERALD_DOCUMENT_EXISTS',
      `${input.filename} is already in ${input.agentId}'s knowledge as ${existing.id} (${existing.chunkCount} chunks, cut when it was first added): delete ${existing.id} first to cut it again with chunk_size/chunk_overlap`,
      { param: 'chunk_size' },
    );
  }
  if (input.metadata === undefined || isDeepStrictEqual(input.metadata, existing.metadata)) return { document: existing, created: false };
  const document = await index.setMetadata(existing.id, input.metadata);
  return document && { document, created: false, updated: true };
}
