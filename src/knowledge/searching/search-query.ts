import { termOf, wordsOf } from '../text-terms.js';
import { withoutQuestionPhrasing } from './question-words.js';

// words too common to say what a question is about: they would match nearly every chunk (the
// words that only ask are a class of their own, `QUESTION_PHRASING`)
const STOPWORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers him his i if in
  into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she
  should so some such than that the their theirs them then there these they this those through to too under until up very
  was we were while will with would you your yours tell please know give many much
  的 了 是 啊 吧 在 和 与 或 及 我 你 您 他 她 它 我们 你们 他们 这 那 这个 那个
  问 一下 可以 能 能否 会 要 需要 有 没有 的话 个
  の は が を に で と も か ます です
  은 는 이 가 을 를 에 의`.split(/\s+/),
);

/** Chinese 几 + a measure word (几天, 几个, 几次, 几点): "how many ..." */
const ASKS_HOW_MANY = /^几\p{Script=Han}$/u;

/**
 * The distinct index terms of a question (segmented and stemmed as chunks are indexed), without
 * the words that only make it a question (a question of those only searches nothing). At most 32.
 */
export function queryTerms(question: string): string[] {
  const words = withoutQuestionPhrasing(wordsOf(question));
  const meaningful = words.filter((w) => !STOPWORDS.has(w) && !ASKS_HOW_MANY.test(w) && (w.length > 1 || /[\d\p{Script=Han}]/u.test(w)));
  return [...new Set(meaningful.map(termOf))].slice(0, 32);
}
