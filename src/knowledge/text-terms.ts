import { porterStem } from './porter-stem.js';

// Scripts written without spaces between words: a run of them is one "word" to a regex, so it is
// cut into words by the ICU dictionaries behind Intl.Segmenter (Chinese, Japanese, Thai, ...).
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/**
 * A word, or a code of words joined by `-`, `_`, `.` or `/` (ERR-4012, ORD-2024-03117, v2.1):
 * a code is indexed as its parts and, when it mixes letters and digits, as one joined term too,
 * so `ERR-4012`, `ERR4012`, `err 4012` and `4012` all find it, the whole code counting most.
 */
const TOKEN = /[\p{L}\p{N}\p{M}]+(?:[-_./][\p{L}\p{N}\p{M}]+)*/gu;
const PART = /[\p{L}\p{N}\p{M}]+/gu;
const LATIN = /^[\p{Script=Latin}\p{N}\p{M}]+$/u;
const CODE = /^(?=.*[a-z])(?=.*\d)[a-z\d]+$/;
/** letters then digits, or digits then letters: `err5003`, `e102`, `dd20240518001`, `5g` */
const LETTERS_DIGITS = /^(?:([a-z]+)(\d+)|(\d+)([a-z]+))$/;
// Korean puts spaces between words, but a word carries its particles and endings
// (비밀번호는, 변경합니다): Hangul is indexed as overlapping syllable pairs, as CJK bigram
// analyzers do, so 비밀번호 finds 비밀번호는 and 변경 finds 변경합니다.
const HANGUL_RUN = /\p{Script=Hangul}+|[^\p{Script=Hangul}]+/gu;
const HANGUL = /^\p{Script=Hangul}/u;
// made with the first CJK or Thai text: building ICU's word segmenter is a cost every start paid
let segmenter: Intl.Segmenter | undefined;

/** a word of letters and digits, and the two halves of one made of letters then digits (or the reverse) */
function pushAlphanumeric(words: string[], word: string): void {
  words.push(word);
  const halves = LETTERS_DIGITS.exec(word);
  if (halves) words.push(...(halves[1] ? [halves[1], halves[2]!] : [halves[3]!, halves[4]!]));
}

function pushWord(words: string[], raw: string): void {
  if (UNSPACED.test(raw)) {
    for (const s of (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' })).segment(raw)) if (s.isWordLike) pushAlphanumeric(words, s.segment);
    return;
  }
  if (/\p{Script=Hangul}/u.test(raw)) {
    for (const [run] of raw.matchAll(HANGUL_RUN)) {
      if (!HANGUL.test(run)) pushWord(words, run);
      else if (run.length === 1) words.push(run);
      else for (let i = 0; i + 1 < run.length; i++) words.push(run.slice(i, i + 2));
    }
    return;
  }
  pushAlphanumeric(words, LATIN.test(raw) ? raw.normalize('NFD').replace(/\p{M}+/gu, '') : raw);
}

/**
 * The words of a text, lower-cased, in order: letters and digits of any script, CJK runs cut
 * into dictionary words, Hangul into syllable pairs, Latin words without diacritics, codes as
 * their parts and joined. Segmenting only the runs that need it keeps ingest fast for the
 * (common) text that has spaces.
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const [token] of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    const parts = token.match(PART)!;
    for (const part of parts) pushWord(words, part);
    if (parts.length > 1) {
      const joined = parts.join('');
      if (CODE.test(joined)) words.push(joined);
    }
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
