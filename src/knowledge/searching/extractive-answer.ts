import type { KnowledgePassage } from '../knowledge-passage.js';
import { plainText } from './plain-text.js';
import { queryTerms } from './search-query.js';
import { termOf, wordsOf } from '../text-terms.js';

export const NOTHING_KNOWN = "I don't have anything on that in my knowledge base, so I can't answer it from my documents.";

/** The answer's own words, in the script the question is written in. */
interface Framing {
  intro: string;
  sources: string;
  nothing: string;
  /** how quoted sentences are joined: CJK sentences run on without a space */
  join: string;
  quote: (text: string) => string;
}

const english: Framing = { intro: 'From my knowledge base:', sources: 'Sources: ', nothing: NOTHING_KNOWN, join: ' ', quote: (t) => `"${t}"` };
const framings: { script: RegExp; framing: Framing }[] = [
  // kana first: Japanese is written with Han characters too
  { script: /[\p{Script=Hiragana}\p{Script=Katakana}]/u, framing: { intro: 'ナレッジベースより：', sources: '出典：', nothing: 'ナレッジベースにはその件に関する情報がないため、ドキュメントからはお答えできません。', join: '', quote: (t) => `「${t}」` } },
  { script: /\p{Script=Hangul}/u, framing: { intro: '지식 베이스에 따르면:', sources: '출처: ', nothing: '지식 베이스에 관련 내용이 없어 문서로는 답할 수 없습니다.', join: ' ', quote: (t) => `"${t}"` } },
  { script: /\p{Script=Han}/u, framing: { intro: '根据我的知识库：', sources: '来源：', nothing: '我的知识库里没有相关内容，无法根据文档回答。', join: '', quote: (t) => `“${t}”` } },
];

/** the framing of the question's script: the first CJK script it holds, else English */
export const framingOf = (question: string): Framing => framings.find((f) => f.script.test(question))?.framing ?? english;

/**
 * a passage's sentences, markup removed: a line (heading, list item, table row) ends one too, and
 * a full stop before a capital, a digit or a letter of a script without case (Korean, which ends
 * sentences with ". " as English does)
 */
const sentencesOf = (text: string) =>
  plainText(text)
    .split('\n')
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[\p{Lu}\p{Lo}\p{N}"'(])|(?<=[。！？])/u))
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));

/** the same sentence, however it was spaced or cased */
const sameness = (sentence: string) => wordsOf(sentence).join(' ');

/**
 * the (at most two) sentences of a passage holding the most of the question's terms, in passage
 * order; among those holding as many, the ones whose terms fewer of the passage's sentences hold
 * (asked "error 4001", the line of 4001, not the one saying what every error looks like)
 */
function bestSentences(content: string, terms: Set<string>): string[] {
  const sentences = sentencesOf(content).map((text) => {
    const words = new Set(wordsOf(text).map(termOf));
    return { text, held: [...terms].filter((t) => words.has(t)) };
  });
  const holding = new Map<string, number>();
  for (const s of sentences) for (const t of s.held) holding.set(t, (holding.get(t) ?? 0) + 1);
  const scored = sentences.map((s) => ({ text: s.text, hits: s.held.length, rarity: s.held.reduce((sum, t) => sum + 1 / holding.get(t)!, 0) }));
  // a question in the passage (an FAQ's) restates what was asked: its answer is what to quote
  const answers = scored.filter((s) => s.hits > 0 && !/[?？]["')\]]?$/u.test(s.text));
  const pool = answers.length ? answers : scored;
  const most = Math.max(0, ...pool.map((s) => s.hits));
  const matching = most > 0 ? pool.filter((s) => s.hits === most) : scored.slice(0, 1);
  // a whole sentence says more than a heading or a table cell holding the same words
  const whole = matching.filter((s) => /[.!?。！？]["')\]]?$/u.test(s.text));
  const candidates = whole.length ? whole : matching;
  const rarest = Math.max(...candidates.map((s) => s.rarity));
  const picked = candidates.filter((s) => s.rarity >= rarest - 1e-9).slice(0, 2);
  return picked.map((s) => (s.text.length > 600 ? `${s.text.slice(0, 599)}…` : s.text));
}

/**
 * The embedded model's answer to a question: it does not reason, it quotes. From the best
 * passages (those scoring within reach of the best one) it quotes, as plain text, the sentences
 * that match the question, each sentence once, and cites each quoted passage by its own number;
 * with no passage it says plainly it has nothing.
 */
export function extractiveAnswer<P extends Pick<KnowledgePassage, 'filename' | 'content' | 'score'>>(question: string, passages: readonly P[]): string {
  const framing = framingOf(question);
  if (!passages.length) return framing.nothing;
  const terms = new Set(queryTerms(question));
  const best = passages[0]!.score;
  const quoted = new Set<string>();
  const cited: { filename: string; quote: string }[] = [];
  for (const p of passages.slice(0, 3).filter((p, i) => i === 0 || p.score >= best * 0.35)) {
    // a sentence another passage already gave (overlapping chunks, a file uploaded twice) is not repeated
    const fresh = bestSentences(p.content, terms).filter((s) => !quoted.has(sameness(s)));
    if (!fresh.length) continue;
    for (const s of fresh) quoted.add(sameness(s));
    cited.push({ filename: p.filename, quote: fresh.join(framing.join) });
  }
  if (!cited.length) return framing.nothing;
  const quotes = cited.map((c, i) => `${framing.quote(c.quote)} [${i + 1}]`);
  const sources = cited.map((c, i) => `[${i + 1}] ${c.filename}`).join(', ');
  return `${framing.intro}\n\n${quotes.join('\n\n')}\n\n${framing.sources}${sources}`;
}
