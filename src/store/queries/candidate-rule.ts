/**
 * How both adapters pick candidates, so that they rank alike. A term held by more chunks than
 * `termCountLimit(total)` is "frequent": its chunks are not all read (that is what made a search
 * slow on a large base, and a term in most chunks says little), its frequency is reported as
 * `frequentTermFrequency(total)`. Candidates are then:
 * - the `limit` chunks holding the most, IDF-weighted (`termWeight`), of the other terms, newest first among equals;
 * - for the frequent terms, the first and last FREQUENT_TERM_SAMPLE chunks holding one (by position),
 *   and every chunk holding one in the agent's newest SMALL_DOCUMENTS documents of at most
 *   SMALL_DOCUMENT_CHUNKS chunks (so one large document cannot hide a small one about the same thing).
 */
export const FREQUENT_TERM_CHUNKS = 500;
export const FREQUENT_TERM_SAMPLE = 8;
export const SMALL_DOCUMENT_CHUNKS = 8;
export const SMALL_DOCUMENTS = 32;
export const termCountLimit = (total: number) => Math.min(FREQUENT_TERM_CHUNKS, Math.floor(total / 2));
export const frequentTermFrequency = (total: number) => Math.min(total, Math.max(termCountLimit(total) + 1, Math.ceil(total / 2)));
/** BM25's IDF, kept positive: what a term held by `n` of `total` chunks weighs */
export const termWeight = (n: number, total: number) => Math.log(1 + (total - n + 0.5) / (n + 0.5));
