import { describe, expect, it } from 'vitest';
import { parseExactJson } from '../../src/utils/exact-json.js';

describe('parseExactJson', () => {
  it('reads integers beyond 2^53 as their exact digits, and everything else as JSON.parse does', () => {
    expect(parseExactJson('{"order_id":820982911946154508,"total":"12.50","n":9007199254740991,"m":-9007199254740993}')).toEqual({
      order_id: '820982911946154508',
      total: '12.50',
      n: 9007199254740991,
      m: '-9007199254740993',
    });
    expect(parseExactJson('[1.5e300, 12345678901234567890.5, 1234567890123456789e2, "820982911946154508", "a\\"820982911946154508"]')).toEqual([
      1.5e300, 12345678901234567890.5, 1234567890123456789e2, '820982911946154508', 'a"820982911946154508',
    ]);
    expect(parseExactJson('{"a":{"b":[820982911946154508]}}')).toEqual({ a: { b: ['820982911946154508'] } });
    expect(() => parseExactJson('{"a":00000000000000000123}')).toThrow(SyntaxError);
  });
});
