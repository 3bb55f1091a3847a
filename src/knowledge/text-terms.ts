import { porterStem } from './porter-stem.js';

// Scripts written without spaces between words: a run of them is one "word" to a regex, so it is
// cut into words by the ICU dictionaries behind Intl.Segmenter (Chinese, Japanese, Thai, ...).
// Korean puts spaces between words, so a regex finds them already.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const LATIN = /^[\p{Script=Latin}\p{N}\p{M}]+$/u;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * The words of a text, lower-cased, in order: letters and digits of any script, CJK runs cut
 * into dictionary words, Latin words without diacritics. Segmenting only the runs that need it
 * keeps ingest fast for the (common) text that has spaces.
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const [raw] of text.normalize('NFKC').toLowerCase().matchAll(WORD)) {
    if (!UNSPACED.test(raw)) {
      words.push(LATIN.test(raw) ? raw.normalize('NFD').replace(/\p{M}+/gu, '') : raw);
      continue;
    }
    for (const s of segmenter.segment(raw)) if (s.isWordLike) words.push(s.segment);
  }
  return words.filter(Boolean);
}

// stems of words seen before: text repeats its vocabulary, and stemming is most of ingest's cost
const stems = new Map<string, string>();

/** a word as the index keeps it: English words by their Porter stem, the others as they are */
export function termOf(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= 100_000) stems.clear();
    stem = porterStem(word);
    stems.set(word, stem);
  }
  return stem;
}

/**
 * The form of a chunk both store adapters index (FTS5 with a plain unicode61 tokenizer,
 * PostgreSQL's `simple` configuration): its terms joined by spaces. Segmenting and stemming
 * happen here, once, so both adapters find and rank the very same terms.
 */
export const indexTextOf = (text: string) => wordsOf(text).map(termOf).join(' ');
