/** the note a cut result ends with */
const note = (maxChars: number, length: number) => `\n[result cut at ${maxChars} of ${length} characters]`;
const NOTE = /\n\[result cut at (\d+) of \d+ characters\]$/;

/**
 * `text` cut to `maxChars`, with a note to the model saying how much there was. Capping twice is
 * capping once: a source caps as it reads (an MCP server's result is not kept whole), and the
 * turn caps whatever a source gives back, without cutting an already capped result again.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const capped = NOTE.exec(text);
  if (capped && Number(capped[1]) === maxChars && capped.index <= maxChars) return text;
  // not between the two halves of a surrogate pair
  const end = /[\uD800-\uDBFF]/.test(text[maxChars - 1] ?? '') ? maxChars - 1 : maxChars;
  // copied, not sliced: V8's slice of a string keeps the whole of it alive
  const kept = Buffer.from(text.slice(0, end), 'utf8').toString('utf8');
  return `${kept}${note(maxChars, text.length)}`;
}
