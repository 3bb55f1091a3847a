import { describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitHeaders } from '../../src/accounts/rate-limiter.js';

describe('RateLimiter', () => {
  it('allows a burst of the per-minute budget, then refills evenly', () => {
    const limiter = new RateLimiter(60);
    const t = 1_000_000;
    for (let i = 0; i < 60; i++) expect(limiter.take('k', t).allowed).toBe(true);
    const refused = limiter.take('k', t);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(limiter.take('k', t + 1000).allowed).toBe(true);
    expect(limiter.take('other', t).remaining).toBe(59);
    expect(rateLimitHeaders(refused)).toMatchObject({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '0' });
  });

  it('forgets the least recently used key past maxKeys, a key taken many times in a row counting as used last', () => {
    const limiter = new RateLimiter(60, 2);
    const t = 1_000_000;
    limiter.take('a', t);
    limiter.take('b', t);
    // b again and again (updated in place), then a: b is now the least recently used
    for (let i = 0; i < 5; i++) limiter.take('b', t);
    limiter.take('a', t);
    limiter.take('c', t);
    // a was kept: its two requests counted; b was forgotten: a full bucket again
    expect(limiter.take('a', t).remaining).toBe(57);
    expect(limiter.take('b', t).remaining).toBe(59);
  });
});
