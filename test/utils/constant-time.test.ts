import { describe, expect, it } from 'vitest';
import { safeEqual } from '../../src/utils/constant-time.js';

describe('safeEqual', () => {
  const secret = 'hook-token-0123456789abcdef';

  it('accepts the secret itself, again and again', () => {
    expect(safeEqual(secret, secret)).toBe(true);
    expect(safeEqual(secret, secret)).toBe(true);
  });

  it('refuses a different, shorter, longer or NUL-padded secret', () => {
    expect(safeEqual('hook-token-0123456789abcdeF', secret)).toBe(false);
    expect(safeEqual(secret.slice(0, -1), secret)).toBe(false);
    expect(safeEqual(`${secret}x`, secret)).toBe(false);
    expect(safeEqual(`${secret.slice(0, -1)}\0`, secret)).toBe(false);
    expect(safeEqual('', secret)).toBe(false);
  });

  it('keeps nothing of one check for the next (its buffer is reused)', () => {
    // the full secret first fills the buffer; a prefix after it must not pass on the bytes left behind
    expect(safeEqual(secret, secret)).toBe(true);
    expect(safeEqual(secret.slice(0, 10), secret)).toBe(false);
    expect(safeEqual(secret, secret)).toBe(true);
  });

  it('compares non-ASCII secrets by their UTF-8 bytes', () => {
    expect(safeEqual('clé-secrète', 'clé-secrète')).toBe(true);
    expect(safeEqual('cle-secrete', 'clé-secrète')).toBe(false);
    expect(safeEqual('clé-secrèt', 'clé-secrète')).toBe(false);
  });
});
