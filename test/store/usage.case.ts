import { describe, expect, it } from 'vitest';
import type { UsageEntry } from '../../src/store/port.js';
import type { OpenStore } from './open-store-under-test.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 24, 10);

const entry = (over: Partial<UsageEntry>): UsageEntry => ({
  at: T0,
  source: 'chat',
  model: 'openai/gpt-4o-mini',
  promptTokens: 10,
  completionTokens: 5,
  totalTokens: 15,
  estimated: false,
  cost: 0.5,
  ...over,
});

/** the tokens of every model call: recorded in batches, summed for budgets, reported by group and day */
export function usageCases(open: OpenStore) {
  describe('usage', () => {
    it('sums what a key or an agent spent since a time, over every handle on the database', async () => {
      const a = await open();
      const b = await open(a);
      await a.usage.record([entry({ keyName: 'ci', agentId: 'sales' }), entry({ keyName: 'ci', agentId: 'support', at: T0 + 1000 })]);
      await b.usage.record([entry({ keyName: 'ci', agentId: 'sales', at: T0 - DAY, totalTokens: 100, cost: 2 }), entry({ agentId: 'sales', mappingId: 'github', source: 'run', at: T0 + 2000 })]);
      await b.usage.record([]);
      expect(await a.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 30, cost: 1 });
      expect(await b.usage.spent({ keyName: 'ci' }, T0 - DAY)).toEqual({ tokens: 130, cost: 3 });
      expect(await a.usage.spent({ agentId: 'sales' }, T0)).toEqual({ tokens: 30, cost: 1 });
      expect(await a.usage.spent({ keyName: 'nobody' }, 0)).toEqual({ tokens: 0, cost: 0 });
    });

    it('reports totals by key, agent, mapping or model, per UTC day, within since and until; estimated tokens apart', async () => {
      const store = await open();
      await store.usage.record([
        entry({ keyName: 'ci', agentId: 'sales', model: 'embedded/extractive', estimated: true, cost: 0 }),
        entry({ keyName: 'ci', agentId: 'sales', at: T0 + DAY, promptTokens: 30, completionTokens: 10, totalTokens: 40 }),
        entry({ agentId: 'support', mappingId: 'github', source: 'run', totalTokens: 20, promptTokens: 15 }),
        entry({ keyName: 'ops', source: 'embeddings', model: 'openai/text-embedding-3-small', completionTokens: 0, promptTokens: 7, totalTokens: 7, cost: 0.1 }),
      ]);
      expect(await store.usage.report({ by: 'key' })).toEqual([
        { group: 'ci', requests: 2, promptTokens: 40, completionTokens: 15, totalTokens: 55, estimatedTokens: 15, cost: 0.5 },
        { group: null, requests: 1, promptTokens: 15, completionTokens: 5, totalTokens: 20, estimatedTokens: 0, cost: 0.5 },
        { group: 'ops', requests: 1, promptTokens: 7, completionTokens: 0, totalTokens: 7, estimatedTokens: 0, cost: 0.1 },
      ]);
      expect((await store.usage.report({ by: 'agent', perDay: true })).map((r) => [r.day, r.group, r.totalTokens])).toEqual([
        ['2026-11-24', 'support', 20],
        ['2026-11-24', 'sales', 15],
        ['2026-11-24', null, 7],
        ['2026-11-25', 'sales', 40],
      ]);
      expect((await store.usage.report({ by: 'mapping', since: T0, until: T0 + 1 })).map((r) => [r.group, r.requests])).toEqual([[null, 2], ['github', 1]]);
      expect((await store.usage.report({ by: 'model', since: T0 + 1 })).map((r) => [r.group, r.totalTokens])).toEqual([['openai/gpt-4o-mini', 40]]);
    });

    it('counts every call of a batch, the calls of one moment alike in whom they count against included', async () => {
      const store = await open();
      const run = (over: Partial<UsageEntry>) => entry({ source: 'run', agentId: 'main', mappingId: 'github', model: 'embedded/echo', estimated: true, cost: 0, ...over });
      const batch = [run({ totalTokens: 10 }), run({ totalTokens: 20 }), run({ totalTokens: 30, at: T0 + 1 }), run({ totalTokens: 40, mappingId: 'stripe' }), run({ totalTokens: 50 })];
      await store.usage.record(batch);
      // the caller's entries are left as they were
      expect(batch.map((e) => e.totalTokens)).toEqual([10, 20, 30, 40, 50]);
      await store.usage.record([run({ totalTokens: 60 })]);
      expect(await store.usage.report({ by: 'mapping' })).toEqual([
        { group: 'github', requests: 5, promptTokens: 50, completionTokens: 25, totalTokens: 170, estimatedTokens: 170, cost: 0 },
        { group: 'stripe', requests: 1, promptTokens: 10, completionTokens: 5, totalTokens: 40, estimatedTokens: 40, cost: 0 },
      ]);
      expect((await store.usage.report({ by: 'agent', since: T0 + 1 }))[0]).toMatchObject({ requests: 1, totalTokens: 30 });
      expect(await store.usage.spent({ agentId: 'main' }, T0)).toEqual({ tokens: 210, cost: 0 });
    });

    it('writes every call recorded in one tick, each settled once all are in, and the ones after the write began in the next', async () => {
      const store = await open();
      const first = [1, 2, 3].map((n) => store.usage.record([entry({ agentId: 'runs', totalTokens: n })]));
      await Promise.all(first);
      expect(await store.usage.spent({ agentId: 'runs' }, 0)).toEqual({ tokens: 6, cost: 1.5 });
      // recorded once the first tick's write settled: a write of its own, not lost to the one before
      await store.usage.record([entry({ agentId: 'runs', totalTokens: 4 }), entry({ agentId: 'runs', totalTokens: 5 })]);
      expect(await store.usage.spent({ agentId: 'runs' }, 0)).toEqual({ tokens: 15, cost: 2.5 });
    });

    it('keeps what it recorded after a restart', async () => {
      const first = await open();
      await first.usage.record([entry({ keyName: 'ci' })]);
      const again = await open(first);
      await first.close();
      expect(await again.usage.spent({ keyName: 'ci' }, 0)).toEqual({ tokens: 15, cost: 0.5 });
    });
  });
}
