import type { KnowledgeCandidate } from '../store/port.js';
import type { ScoredCandidate } from './rank-passages.js';

/** RRF's constant: ranks deep in either list still count, the top of each counts most */
const RRF_K = 60;
/** a chunk found only by its vector, not by a word of the question, must be at least this similar */
const MIN_SIMILARITY = 0.3;

/**
 * Reciprocal rank fusion of the full-text ranking (best first) and the vector ranking (nearest
 * first): each chunk scores the sum of 1 / (60 + rank) over the lists it is in. Scores of
 * different scales (BM25, cosine) need no calibration this way. Best first.
 */
export function fuseRankings(textual: ScoredCandidate[], near: (KnowledgeCandidate & { similarity: number })[]): ScoredCandidate[] {
  const fused = new Map<string, ScoredCandidate>();
  textual.forEach((c, rank) => fused.set(c.chunkId, { ...c, score: 1 / (RRF_K + rank + 1) }));
  near.forEach((c, rank) => {
    const known = fused.get(c.chunkId);
    if (known) known.score += 1 / (RRF_K + rank + 1);
    else if (c.similarity >= MIN_SIMILARITY) fused.set(c.chunkId, { ...c, score: 1 / (RRF_K + rank + 1) });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
