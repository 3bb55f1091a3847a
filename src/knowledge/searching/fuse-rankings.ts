import type { KnowledgeCandidate } from '../../store/port.js';
import type { ScoredCandidate } from './rank-passages.js';

/** the vector side's share of a fused score; the full-text side has the rest */
const VECTOR_WEIGHT = 0.5;
/** a chunk found only by its vector, not by a word of the question, must be at least this similar */
const MIN_SIMILARITY = 0.3;

/**
 * A convex combination of the two rankings' scores, each brought to [0, 1] by its own scale:
 * BM25 divided by the best BM25 score of the question, cosine similarity (at least 0) divided by
 * the best similarity. Unlike fusing ranks, a passage far ahead on one side keeps its lead: a
 * question whose words one passage holds many times, or whose code only one passage holds, is not
 * overturned by a vector ranking that barely tells the candidates apart; and where the words find
 * nothing, the vectors decide alone. A full-text candidate the vector search did not return is
 * taken to be as similar as the least similar one it did (it is at most that). Best first.
 */
export function fuseRankings(textual: ScoredCandidate[], near: (KnowledgeCandidate & { similarity: number })[]): ScoredCandidate[] {
  const bestText = textual[0]?.score ?? 0;
  const bestSimilarity = Math.max(0, ...near.map((c) => c.similarity));
  const floor = near.length ? Math.max(0, Math.min(...near.map((c) => c.similarity))) : 0;
  const similarity = new Map(near.map((c) => [c.chunkId, Math.max(0, c.similarity)]));
  const vector = (s: number) => (bestSimilarity > 0 ? s / bestSimilarity : 0);
  const fused = new Map<string, ScoredCandidate>();
  for (const c of textual) {
    const text = bestText > 0 ? c.score / bestText : 0;
    fused.set(c.chunkId, { ...c, score: (1 - VECTOR_WEIGHT) * text + VECTOR_WEIGHT * vector(similarity.get(c.chunkId) ?? floor) });
  }
  for (const c of near) {
    if (!fused.has(c.chunkId) && c.similarity >= MIN_SIMILARITY) fused.set(c.chunkId, { ...c, score: VECTOR_WEIGHT * vector(c.similarity) });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
