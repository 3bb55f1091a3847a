/**
 * `list.map(make)` whose result has one shape whether its caller runs interpreted or optimised.
 * V8's optimising compiler inlines `Array.prototype.map` and allocates the result as a holey array,
 * where the builtin gives a packed one: an array that flows on (a conversation's messages, into
 * the turn, the transcript and the session store) changes shape the moment its maker is
 * optimised, and every optimised function it reaches is thrown out and compiled again. Built by
 * `push` on a literal, it stays packed in both.
 */
export function packedMap<T, U>(list: readonly T[], make: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < list.length; i++) out.push(make(list[i]!, i));
  return out;
}
