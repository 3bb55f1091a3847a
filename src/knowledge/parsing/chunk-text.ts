export interface ChunkOptions {
  /** characters per chunk */
  size: number;
  /** characters repeated from the end of one chunk at the start of the next (at most size/2) */
  overlap: number;
}

export const DEFAULT_CHUNK: ChunkOptions = { size: 1000, overlap: 150 };

/**
 * Cuts text into overlapping windows of about `size` characters, ending each at the best
 * boundary in its last third (paragraph, then sentence, then word), so a passage rarely
 * stops mid-sentence. Whitespace runs are collapsed first; empty text gives no chunks.
 * Stops once it holds more than `max` chunks (the caller refuses the document then).
 */
export function chunkText(text: string, options: ChunkOptions = DEFAULT_CHUNK, max = Infinity): string[] {
  // each pattern matches only what it changes: one matching every single space or newline makes
  // V8 build the text anew from a million parts (~140 MB of heap for an 8 MB text), where these
  // leave ordinary prose as it is, the same string
  const clean = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v]{2,}|[\t\f\v]/g, ' ')
    .replace(/ \n ?|\n /g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (!clean) return [];
  const { size, overlap } = options;
  const chunks: string[] = [];
  let start = 0;
  while (start < clean.length && chunks.length <= max) {
    let end = Math.min(start + size, clean.length);
    if (end < clean.length) end = boundary(clean, start + Math.floor((size * 2) / 3), end);
    const piece = clean.slice(start, end).trim();
    if (piece) chunks.push(piece);
    if (end >= clean.length) break;
    // step back by the overlap, but to a word start, and always move forward
    let next = Math.max(end - overlap, start + 1);
    if (overlap > 0) {
      // searched within [next, end) only: a search to the end of a text without newlines, once per chunk, is quadratic
      const cut = /[ \n]/.exec(clean.slice(next, end))?.index;
      if (cut !== undefined) next += cut + 1;
    } else next = end;
    start = next;
  }
  return chunks;
}

/** the last good break in [from, to): paragraph, sentence end, line, then space; `to` when none */
function boundary(text: string, from: number, to: number): number {
  const window = text.slice(from, to);
  for (const pattern of [/\n\n/g, /[.!?]["')\]]?\s/g, /\n/g, / /g]) {
    let last = -1;
    for (const m of window.matchAll(pattern)) last = m.index! + m[0].length;
    if (last > 0) return from + last;
  }
  return to;
}
