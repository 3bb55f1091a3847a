import { describe, expect, it } from 'vitest';
import type { OpenStore } from './open-store-under-test.js';

const hash = (c: string) => c.repeat(64);

/** platform API keys made by `herald keys create`: only the hash is kept */
export function apiKeysCases(open: OpenStore) {
  describe('api keys', () => {
    it('creates, finds by hash, lists and revokes', async () => {
      const store = await open();
      expect(await store.apiKeys.create({ name: 'ci', keyHash: hash('a'), agents: ['main'], createdAt: 1 })).toBe(true);
      expect(await store.apiKeys.create({ name: 'all', keyHash: hash('b'), createdAt: 2 })).toBe(true);
      expect(await store.apiKeys.findByHash(hash('a'))).toEqual({ name: 'ci', keyHash: hash('a'), agents: ['main'], createdAt: 1 });
      expect(await store.apiKeys.findByHash(hash('c'))).toBeUndefined();
      expect(await store.apiKeys.get('all')).toEqual({ name: 'all', keyHash: hash('b'), createdAt: 2 });
      expect((await store.apiKeys.list()).map((k) => k.name)).toEqual(['ci', 'all']);
      expect(await store.apiKeys.revoke('ci')).toBe(true);
      expect(await store.apiKeys.revoke('ci')).toBe(false);
      expect(await store.apiKeys.findByHash(hash('a'))).toBeUndefined();
    });

    it('refuses a taken name, also to two processes creating it at once', async () => {
      const a = await open();
      const b = await open(a);
      const results = await Promise.all([a.apiKeys.create({ name: 'ci', keyHash: hash('a'), createdAt: 1 }), b.apiKeys.create({ name: 'ci', keyHash: hash('b'), createdAt: 1 })]);
      expect(results.sort()).toEqual([false, true]);
      expect(await a.apiKeys.list()).toHaveLength(1);
    });
  });
}
