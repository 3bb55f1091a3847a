import { termOf, wordsOf } from '../text-terms.js';

// words too common to say what a question is about (they would match nearly every chunk), and the
// words that only ask (how many, how long, when): a document holding one of those once is not
// about the question, yet the word is rare enough to outrank the question's topic
const STOPWORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers him his how i if in
  into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she
  should so some such than that the their theirs them then there these they this those through to too under until up very
  was we were what when where which while who whom why will with would you your yours tell please know give many much
  的 了 是 吗 呢 吧 啊 在 和 与 或 及 我 你 您 他 她 它 我们 你们 他们 这 那 这个 那个 什么 怎么 怎样 如何 哪 哪些 哪个 为什么 多少 几
  请 问 请问 一下 可以 能 能否 会 要 需要 有 没有 吗 的话 个 多久 多长 哪里 哪儿 怎么办 怎么样 什么样 什么时候
  の は が を に で と も か ですか ます です 何 どう どの どこ いつ なぜ
  은 는 이 가 을 를 에 의 무엇 어떻게 언제 어디 왜 며칠 얼마 몇`.split(/\s+/),
);

/** Chinese 几 + a measure word (几天, 几个, 几次, 几点): "how many ..." */
const ASKS_HOW_MANY = /^几\p{Script=Han}$/u;

/**
 * The distinct index terms of a question (segmented and stemmed as chunks are indexed), without
 * the words that only make it a question (a question of those only searches nothing). At most 32.
 */
export function queryTerms(question: string): string[] {
  const words = wordsOf(question);
  const meaningful = words.filter((w) => !STOPWORDS.has(w) && !ASKS_HOW_MANY.test(w) && (w.length > 1 || /[\d\p{Script=Han}]/u.test(w)));
  return [...new Set(meaningful.map(termOf))].slice(0, 32);
}
