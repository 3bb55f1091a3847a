import { BoundedMemo } from './bounded-memo.js';

/** JavaScript's whitespace (what `\s` matches) */
const SPACE = /\s/;

/** 1 for the ASCII whitespace `\s` matches (tab to carriage return, space), 0 for the rest of ASCII */
const ASCII_SPACE = new Uint8Array(128);
for (const code of [9, 10, 11, 12, 13, 32]) ASCII_SPACE[code] = 1;

/**
 * The bytes an ASCII string is copied into to be counted: a loop over a buffer's bytes is several
 * times as fast as `charCodeAt` over the string (docs/performance.md).
 * A string of at most a third of it always fits whole (UTF-8 takes at most 3 bytes per UTF-16 unit),
 * so it was ASCII exactly when its bytes number its length.
 */
const scratch = Buffer.allocUnsafe(64 * 1024);
const ASCII_MAX = Math.floor(scratch.length / 3);

/**
 * How many runs of non-space characters `s` has (what `s.match(/\S+/g).length` counts), without
 * the array of every word: the usage estimate of every turn whose model reports none (the embedded
 * model's, a hook run's safety-wrapped prompt included). Branch-free over ASCII bytes (a word
 * counted where a space is followed by a non-space); other strings by their characters, the
 * non-ASCII ones (no-break and other spaces) by the regular expression.
 */
export function wordCount(s: string): number {
  if (s.length <= ASCII_MAX) {
    const bytes = scratch.write(s, 0, 'utf8');
    if (bytes === s.length) return asciiWords(bytes);
  }
  let words = 0;
  let afterSpace = 1;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const space = code < 128 ? ASCII_SPACE[code]! : SPACE.test(s[i]!) ? 1 : 0;
    words += afterSpace & (space ^ 1);
    afterSpace = space;
  }
  return words;
}

function asciiWords(length: number): number {
  let words = 0;
  let afterSpace = 1;
  for (let i = 0; i < length; i++) {
    const space = ASCII_SPACE[scratch[i]!]!;
    words += afterSpace & (space ^ 1);
    afterSpace = space;
  }
  return words;
}

/**
 * The word counts of texts a prompt repeats, by text: a session's history (and its agent's
 * instructions) comes back in every turn of the session, so without these counts each turn would count
 * the whole history again, a cost growing with `agents.defaults.historyLimit`. Bounded by the
 * texts' characters, so what it holds stays small whatever their sizes.
 */
const repeatedCounts = new BoundedMemo<string, number>(1 << 20, (text) => text.length);

/** a text with its word count, counted as it was made */
export interface CountedText {
  text: string;
  words: number;
}

/**
 * Lines joined by newlines, with their word count: the sum of the lines' counts (a word never
 * spans a newline), `knownWords` giving those known already. The count goes with the text (a hook
 * run's prompt: countedMessage), so promptWordCount does not count it again.
 */
export function joinCounted(lines: readonly string[], knownWords: (line: string) => number | undefined): CountedText {
  const text = lines.join('\n');
  // the lines between known ones counted as slices of the joined text: a slice shares its characters,
  // where a line made by a template literal is a tree of its parts that counting it would flatten into a copy
  let words = 0;
  let from = 0;
  let at = 0;
  for (const line of lines) {
    const known = knownWords(line);
    if (known !== undefined) {
      words += wordCount(text.slice(from, at)) + known;
      from = at + line.length;
    }
    at += line.length + 1;
  }
  return { text, words: words + wordCount(text.slice(from)) };
}

/**
 * A message whose words were counted as its text was made: the count kept on the message itself,
 * in a private field that no serialiser, spread or copy sees, not in a WeakMap beside it (a set
 * and a get of an ephemeron table per run, and an ephemeron for every collection to trace)
 */
class CountedMessage<R extends string> {
  readonly #words: number;
  constructor(
    public role: R,
    public content: string,
    words: number,
  ) {
    this.#words = words;
  }

  static wordsOf(message: object): number | undefined {
    return #words in message ? (message as CountedMessage<string>).#words : undefined;
  }
}

/** a message of `role` saying `content`, its words known to be `words` (undefined: not known, counted when asked) */
export function countedMessage<R extends string>(role: R, content: string, words: number | undefined): { role: R; content: string } {
  return words === undefined ? { role, content } : new CountedMessage(role, content, words);
}

/**
 * The words of a prompt's messages (a usage estimate's prompt tokens). The last message is the
 * turn's new one, seen once: its count if it was made counted (countedMessage), else counted as it is.
 * The ones before it are what the next turns of the session will send again: their counts are kept.
 */
export function promptWordCount(messages: readonly { content: string }[]): number {
  const last = messages.length - 1;
  const newest = last >= 0 ? messages[last]!.content : undefined;
  let words = newest === undefined ? 0 : (CountedMessage.wordsOf(messages[last]!) ?? wordCount(newest));
  for (let i = 0; i < last; i++) words += repeatedCounts.get(messages[i]!.content, wordCount);
  return words;
}
