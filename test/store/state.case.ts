import { describe, expect, it } from 'vitest';
import type { OpenStore } from './open-store-under-test.js';

/** small durable key/value state: plugin state (the gmail historyId), the main session's last route */
export function stateCases(open: OpenStore) {
  describe('state', () => {
    it('gets, sets and deletes, across a restart', async () => {
      const first = await open();
      expect(await first.state.get('k')).toBeUndefined();
      await first.state.set('k', { channel: 'telegram', to: '42' });
      await first.state.set('gone', 1);
      await first.state.delete('gone');
      await first.state.delete('no-such-key');
      await first.close();
      const store = await open(first);
      expect(await store.state.get('k')).toEqual({ channel: 'telegram', to: '42' });
      expect(await store.state.get('gone')).toBeUndefined();
    });

    it('updates atomically: no increment is lost when two processes update one key at once', async () => {
      const a = await open();
      const b = await open(a);
      const bump = (n: number | undefined) => (n ?? 0) + 1;
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).state.update<number>('n', bump)));
      expect(results.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await a.state.get('n')).toBe(20);
    });

    it('lists the keys of a prefix with their values, by key (a prefix, not a LIKE pattern)', async () => {
      const first = await open();
      for (const key of ['health:b/provider/up', 'health:a/channel/slack', 'health_x', 'HEALTH:c', 'other']) await first.state.set(key, { key });
      const second = await open(first);
      expect(await second.state.list('health:')).toEqual([
        { key: 'health:a/channel/slack', value: { key: 'health:a/channel/slack' } },
        { key: 'health:b/provider/up', value: { key: 'health:b/provider/up' } },
      ]);
      expect(await second.state.list('health:a/')).toEqual([{ key: 'health:a/channel/slack', value: { key: 'health:a/channel/slack' } }]);
      expect(await second.state.list('none:')).toEqual([]);
    });

    it('prunes keys by prefix and age (a prefix, not a LIKE pattern)', async () => {
      const store = await open();
      // LIKE 'seen_:%' would also take seenX:old (_ is a wildcard) and SEEN_:old (LIKE ignores case)
      for (const key of ['seen_:1', 'seen_:2', 'seenX:old', 'SEEN_:old', 'other:old']) await store.state.set(key, { at: 1 });
      expect(await store.state.deleteOlderThan('seen_:', 0)).toBe(0);
      expect(await store.state.deleteOlderThan('seen_:', Date.now() + 60_000)).toBe(2);
      expect(await store.state.deleteOlderThan('seen_:', Date.now() + 60_000)).toBe(0);
      for (const key of ['seen_:1', 'seen_:2']) expect(await store.state.get(key)).toBeUndefined();
      for (const key of ['seenX:old', 'SEEN_:old', 'other:old']) expect(await store.state.get(key)).toEqual({ at: 1 });
    });
  });
}
