import { webcrypto } from 'node:crypto';
import type { ChunkOptions } from './chunk-text.js';
import { documentTypes } from './detect-type.js';
import type { KnowledgeDocument, KnowledgeIndex } from './knowledge-index.js';
import type { ParsePool } from './parse-pool.js';

export interface IngestInput {
  agentId: string;
  filename: string;
  bytes: Uint8Array;
  chunking: ChunkOptions;
  metadata?: Record<string, unknown> | null;
}

/**
 * Adds one file to an agent's knowledge base: type by content, text, chunks (all three in a
 * parse worker, under the knowledge limits), then the index. The same bytes for the same agent
 * return the document already there (`created: false`). The event loop only hashes (WebCrypto
 * digests on libuv's thread pool) and stores.
 */
export async function ingestDocument(index: KnowledgeIndex, parser: ParsePool, input: IngestInput): Promise<{ document: KnowledgeDocument; created: boolean }> {
  const sha256 = Buffer.from(await webcrypto.subtle.digest('SHA-256', input.bytes)).toString('hex');
  const existing = await index.findByHash(input.agentId, sha256);
  if (existing) return { document: existing, created: false };
  const parsed = await parser.parse(input.bytes, input.filename, input.chunking);
  const chunks = Array.from({ length: parsed.count }, (_, i) => parsed.chunk(i));
  return index.add(
    { agentId: input.agentId, filename: input.filename, bytes: input.bytes.byteLength, mimeType: documentTypes[parsed.type], sha256, metadata: input.metadata ?? null },
    chunks,
  );
}
