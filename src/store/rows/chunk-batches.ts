import type { NewKnowledgeChunkBatches, NewKnowledgeChunks } from '../contracts/knowledge-port.js';

const isBatches = (chunks: NewKnowledgeChunks | NewKnowledgeChunkBatches): chunks is NewKnowledgeChunkBatches => Symbol.asyncIterator in chunks;

/**
 * A document's chunks as `KnowledgeRepo.add` writes them: batches of at most `size`, in order (a
 * batch that arrives larger is cut). Each chunk is still read only when the writer reads it, once:
 * a batch's chunks held together would outlive the young generation's collections and make V8
 * grow it, for every document.
 */
export async function* chunkBatches(chunks: NewKnowledgeChunks | NewKnowledgeChunkBatches, size: number): AsyncGenerator<NewKnowledgeChunks> {
  for await (const batch of isBatches(chunks) ? chunks : [chunks]) {
    for (let from = 0; from < batch.length; from += size) {
      const length = Math.min(size, batch.length - from);
      yield { length, at: (i) => (i >= 0 && i < length ? batch.at(from + i) : undefined) };
    }
  }
}
