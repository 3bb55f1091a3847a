import { describe, expect, it } from 'vitest';
import { isoString, isoTime } from '../../src/time/iso-time.js';

describe('ISO times', () => {
  it('writes each millisecond as toISOString does, the same one again and another after it', () => {
    for (const ms of [0, 1_764_230_000_123, 1_764_230_000_123, 1_764_230_000_124, 0]) expect(isoString(ms)).toBe(new Date(ms).toISOString());
    expect(isoTime(null)).toBeNull();
    expect(isoTime(1_764_230_000_124)).toBe('2025-11-27T07:53:20.124Z');
  });

  it('refuses a time that is no time, as toISOString does', () => {
    expect(() => isoString(Number.NaN)).toThrow(RangeError);
    expect(() => isoString(Number.NaN)).toThrow(RangeError);
  });
});
