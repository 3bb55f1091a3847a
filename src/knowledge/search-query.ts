// words too common to say what a question is about; they would match nearly every chunk
const STOPWORDS = new Set(
  `a about above after again all also am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers him his how i if in
  into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she
  should so some such than that the their theirs them then there these they this those through to too under until up very
  was we were what when where which while who whom why will with would you your yours tell please know give`.split(/\s+/),
);

/** The distinct meaningful words of a question, lower-cased (letters and digits of any script). */
export function queryTerms(question: string): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = [...new Set(words.filter((w) => !STOPWORDS.has(w) && (w.length > 1 || /\d/.test(w))))];
  return terms.slice(0, 32);
}
