import { wordsOf } from '../text-terms.js';

/**
 * Per language, the words and phrases that only make a text a question: when, where, how, why,
 * which, how many, how much, and the endings that ask (ですか). A document holding one of them
 * once is not about the question, yet the word is rare enough in documents to outrank the
 * question's topic (an FAQ line "什么时候能到？" over the policy that says when), so the query side
 * does not search for them; documents are indexed with them, as written. Phrases are cut as a
 * question is (the CJK segmenter cuts 哪天 into 哪 + 天 and どうやって into どう + や + って), and
 * a question drops a run of words equal to a phrase's.
 */
export const QUESTION_PHRASING = {
  en: ['how', 'what', 'when', 'where', 'which', 'who', 'whom', 'whose', 'why', 'how many', 'how much', 'how long'],
  zh: [
    '什么', '什么时候', '何时', '哪天', '几时', '几点',
    '哪', '哪里', '哪儿', '在哪', '在哪里', '在哪儿', '去哪', '去哪里', '去哪儿', '何处',
    '怎么', '怎样', '怎么样', '怎么办', '如何', '怎么弄', '咋',
    '为什么', '为何', '为啥',
    '哪个', '哪些', '哪种', '哪位', '什么样',
    '多少', '多少钱', '多久', '多长', '多长时间', '几',
    '吗', '呢', '请问',
  ],
  ja: [
    'いつ', 'いつごろ',
    'どこ', 'どこで', 'どこに', 'どこへ', 'どちら',
    'どう', 'どうやって', 'どうすれば', 'どうすればいい', 'すればいい', 'どうしたら', 'どうします', 'どのように',
    'なぜ', 'どうして', 'なんで',
    'どの', 'どれ', 'どんな', '何', '何時', 'だれ', '誰',
    'いくら', 'どのくらい', 'どれくらい', 'いくつ',
    'ですか', 'ますか', 'でしょうか',
  ],
  ko: ['무엇', '어떻게', '언제', '어디', '어디서', '왜', '며칠', '얼마', '몇', '어느'],
} as const;

/**
 * question words bound to the measure word or counter after them (几天, 哪天, 何日, 何回); after
 * 多少 comes what is counted (多少天, 多少积分), and いつまで, いつから keep until and from: a
 * deadline is written with them (3営業日前までに)
 */
const ASKS_COUNT_OF = new Set(['几', '哪', '何']);
const ONE_HAN = /^\p{Script=Han}$/u;

// cut as questions are, on the first question: building ICU's segmenter is a cost every start paid
let phrases: string[][] | undefined;
const phrasesCut = () =>
  (phrases ??= [...new Set(Object.values(QUESTION_PHRASING).flat())].map((p) => wordsOf(p)).filter((w) => w.length > 0).sort((a, b) => b.length - a.length));

/** the words of a question (as `wordsOf` cuts them) without its question phrasing, longest phrase first */
export function withoutQuestionPhrasing(words: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < words.length; ) {
    const phrase = phrasesCut().find((p) => p.every((w, j) => words[i + j] === w));
    if (!phrase) {
      kept.push(words[i++]!);
      continue;
    }
    i += phrase.length;
    // the measure word a lone question word asks the count of (天 of 哪天, 日 of 何日) is part of
    // the asking; after 在哪 or 去哪 the next word is the question's verb (在哪开)
    if (phrase.length === 1 && ASKS_COUNT_OF.has(phrase[0]!) && ONE_HAN.test(words[i] ?? '')) i++;
  }
  return kept;
}
