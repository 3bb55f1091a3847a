import { describe, expect, it } from 'vitest';
import { wordCount } from '../../src/utils/word-count.js';

const byRegex = (s: string) => (s.match(/\S+/g) ?? []).length;

describe('wordCount', () => {
  it('counts what /\\S+/g matches, on ASCII, Unicode spaces and text past the byte fast path', () => {
    const samples = [
      '',
      ' ',
      'one',
      '  two  words ',
      'tabs\tand\nnewlines\r\nand\vvertical\fform feeds',
      'no\u00a0break\u2003em\u3000ideographic\ufeffbom\u2028line',
      'non-ASCII words: café naïve 日本語 emoji 🎉 here',
      'a'.repeat(30_000),
      'word '.repeat(25_000),
      'x '.repeat(10_921) + 'é',
      `${'w '.repeat(11_000)}\u00a0tail`,
    ];
    for (const s of samples) expect(wordCount(s), JSON.stringify(s.slice(0, 40))).toBe(byRegex(s));
  });

  it('is not confused by what an earlier, longer string left behind', () => {
    expect(wordCount('a b c d e f g h')).toBe(8);
    expect(wordCount('ab')).toBe(1);
  });
});
