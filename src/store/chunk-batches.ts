import type { NewKnowledgeChunk, NewKnowledgeChunkBatches, NewKnowledgeChunks } from './knowledge-port.js';

const isBatches = (chunks: NewKnowledgeChunks | NewKnowledgeChunkBatches): chunks is NewKnowledgeChunkBatches => Symbol.asyncIterator in chunks;

/**
 * A document's chunks as `KnowledgeRepo.add` writes them: lists of at most `size`, in order, each
 * read from what was given only when its turn comes (a batch that arrives larger is cut).
 */
export async function* chunkBatches(chunks: NewKnowledgeChunks | NewKnowledgeChunkBatches, size: number): AsyncGenerator<NewKnowledgeChunk[]> {
  for await (const batch of isBatches(chunks) ? chunks : [chunks]) {
    for (let from = 0; from < batch.length; from += size) {
      yield Array.from({ length: Math.min(size, batch.length - from) }, (_, i) => batch.at(from + i)!);
    }
  }
}
