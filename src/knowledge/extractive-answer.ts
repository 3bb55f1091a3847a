import type { KnowledgePassage } from './knowledge-passage.js';
import { queryTerms } from './search-query.js';

export const NOTHING_KNOWN = "I don't have anything on that in my knowledge base, so I can't answer it from my documents.";

// a light stem, so "refunds" in a question finds "refund" in a sentence
const stem = (word: string) => word.replace(/(ing|ed|es|s)$/u, '');

const sentencesOf = (text: string) =>
  text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u)
    .map((s) => s.trim())
    .filter(Boolean);

/** the (at most two) sentences of a passage holding the most of the question's words, in passage order */
function bestSentences(content: string, stems: string[]): string {
  const sentences = sentencesOf(content);
  const scored = sentences.map((text, i) => {
    const words = new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
    return { i, text, hits: stems.filter((s) => words.has(s)).length };
  });
  const most = Math.max(0, ...scored.map((s) => s.hits));
  const picked = scored.filter((s) => most > 0 && s.hits === most).slice(0, 2);
  const chosen = picked.length ? picked.map((s) => s.text).join(' ') : (sentences[0] ?? content);
  return chosen.length > 600 ? `${chosen.slice(0, 599)}…` : chosen;
}

/**
 * The embedded model's answer to a question: it does not reason, it quotes. From the best
 * passages (those scoring within reach of the best one) it quotes the sentences that match
 * the question and cites them by number; with no passage it says plainly it has nothing.
 */
export function extractiveAnswer(question: string, passages: KnowledgePassage[]): string {
  if (!passages.length) return NOTHING_KNOWN;
  const stems = queryTerms(question).map(stem);
  const best = passages[0]!.score;
  const used = passages.slice(0, 3).filter((p, i) => i === 0 || p.score >= best * 0.35);
  const quotes = used.map((p, i) => `"${bestSentences(p.content, stems)}" [${i + 1}]`);
  const sources = used.map((p, i) => `[${i + 1}] ${p.filename}`).join(', ');
  return `From my knowledge base:\n\n${quotes.join('\n\n')}\n\nSources: ${sources}`;
}
