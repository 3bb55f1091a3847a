import { termWeight, type KnowledgeCandidate, type KnowledgeCandidates } from '../../store/port.js';
import type { KnowledgePassage } from '../knowledge-passage.js';

// BM25's usual constants: term frequency saturates (k1), long chunks are discounted (b)
const K1 = 1.2;
const B = 0.75;
/** each passage already taken from a document halves the next one's score from it */
const SAME_DOCUMENT = 0.5;
/** passages from one document, at most, while other documents have candidates left */
const PER_DOCUMENT = 2;
/** passages sharing this share of their distinct terms say the same thing: only the best is kept */
const NEAR_DUPLICATE = 0.8;

export interface ScoredCandidate extends KnowledgeCandidate {
  score: number;
}

/** how often `term` is a whole word of the space-separated `terms` (no splitting: this runs for every candidate) */
function occurrences(terms: string, term: string): number {
  let n = 0;
  for (let at = terms.indexOf(term); at !== -1; at = terms.indexOf(term, at + term.length)) {
    const end = at + term.length;
    if ((at === 0 || terms.charCodeAt(at - 1) === 32) && (end === terms.length || terms.charCodeAt(end) === 32)) n++;
  }
  return n;
}

/**
 * BM25 of each candidate for the query's terms, with an IDF that stays positive: a term in
 * most chunks still counts a little (so a chunk holding it and a rarer term beats one holding
 * the rarer term only), and a rare, specific term counts far more; times the share of the
 * question's terms the chunk holds. A chunk's length is its index form's, in characters.
 * Candidates holding none of the terms get 0 and are dropped. Best first.
 */
export function scoreCandidates(terms: string[], found: KnowledgeCandidates): ScoredCandidate[] {
  const { total, frequencies, candidates } = found;
  const weighted = terms.map((t, i) => ({ t, w: termWeight(frequencies[i]!, total) })).filter((_, i) => frequencies[i]! > 0);
  const averageLength = candidates.reduce((n, c) => n + c.terms.length, 0) / Math.max(1, candidates.length);
  const scored: ScoredCandidate[] = [];
  for (const c of candidates) {
    const norm = K1 * (1 - B + (B * c.terms.length) / averageLength);
    let score = 0;
    let held = 0;
    for (const { t, w } of weighted) {
      const tf = occurrences(c.terms, t);
      if (tf === 0) continue;
      held++;
      score += (w * tf * (K1 + 1)) / (tf + norm);
    }
    // coordination: a chunk holding more of the question's (indexed) terms is more about it
    if (held > 0) scored.push({ ...c, score: (score * held) / weighted.length });
  }
  return scored.sort((a, b) => b.score - a.score);
}

/** Jaccard similarity of two passages' distinct terms */
const overlap = (a: Set<string>, b: Set<string>) => {
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.max(1, a.size + b.size - shared);
};

/**
 * Picks `limit` passages from scored candidates (best first): one at a time, the best after a
 * penalty for each passage already taken from its document, and at most two from one document
 * while others have candidates (so one large document cannot crowd out the others, yet still
 * fills the list when nothing else matches), skipping a passage
 * whose words mostly repeat one already taken (the same text uploaded twice, or overlapping chunks).
 */
export function pickPassages(scored: ScoredCandidate[], limit: number): KnowledgePassage[] {
  const picked: ScoredCandidate[] = [];
  const wordsOf = new Map<ScoredCandidate, Set<string>>();
  const words = (c: ScoredCandidate) => wordsOf.get(c) ?? wordsOf.set(c, new Set(c.terms.split(' '))).get(c)!;
  const taken = new Map<string, number>();
  const left = [...scored];
  while (picked.length < limit && left.length) {
    let best = -1;
    let bestScore = -Infinity;
    const open = left.some((c) => (taken.get(c.documentId) ?? 0) < PER_DOCUMENT);
    for (let i = 0; i < left.length; i++) {
      const already = taken.get(left[i]!.documentId) ?? 0;
      if (open && already >= PER_DOCUMENT) continue;
      const effective = left[i]!.score * SAME_DOCUMENT ** already;
      if (effective > bestScore) {
        best = i;
        bestScore = effective;
      }
    }
    const [next] = left.splice(best, 1);
    if (picked.some((p) => overlap(words(p), words(next!)) >= NEAR_DUPLICATE)) continue;
    picked.push(next!);
    taken.set(next!.documentId, (taken.get(next!.documentId) ?? 0) + 1);
  }
  return picked.map((p) => ({ documentId: p.documentId, filename: p.filename, chunkId: p.chunkId, score: Math.round(p.score * 10_000) / 10_000, content: p.content }));
}
