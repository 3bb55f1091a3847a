import { describe, expect, it } from 'vitest';
import { maskedBody } from '../../../src/runtime/receipts/masked-body.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');

describe('a retained body with its credential fields masked', () => {
  it('replaces the value wherever it occurs, the rest byte for byte (spacing, order, a snowflake beyond 2^53)', () => {
    const raw = '{ "type": 2, "id": 1234567890123456789012, "token": "aW50ZXJhY3Rpb24", "data": {"echo": "aW50ZXJhY3Rpb24"} }';
    expect(text(maskedBody(bytes(raw), ['token']))).toBe('{ "type": 2, "id": 1234567890123456789012, "token": "…", "data": {"echo": "…"} }');
  });

  it('writes the body anew when the value is written otherwise (escaped) or is not a string', () => {
    const escaped = '{"token":"a\\/b","n":1}';
    expect(JSON.parse(text(maskedBody(bytes(escaped), ['token'])))).toEqual({ token: '…', n: 1 });
    expect(JSON.parse(text(maskedBody(bytes('{"token":{"v":"x"}}'), ['token'])))).toEqual({ token: '…' });
  });

  it('keeps as is a body without the field, one masked already, and one that is not a JSON object', () => {
    for (const raw of ['{"id":"1"}', '{"token":"…"}', 'token=abc&x=1', '["token"]']) expect(text(maskedBody(bytes(raw), ['token']))).toBe(raw);
  });
});
