import { describe, expect, it } from 'vitest';
import type { UsageEntry, UsageLimit } from '../../src/store/port.js';
import type { PreviousVersionDatabase } from './migrations.case.js';
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
export function usageCases(open: OpenStore, beforeTotals: () => Promise<PreviousVersionDatabase>) {
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

    it('reserves a call against its budgets and settles it with what it spent, or gives the reservation back', async () => {
      const store = await open();
      const daily: UsageLimit = { whose: { keyName: 'ci' }, since: T0, tokens: 1500 };
      const reserved = await store.usage.reserve(entry({ keyName: 'ci', agentId: 'sales', promptTokens: 200, completionTokens: 800, totalTokens: 1000 }), [daily]);
      if (!('id' in reserved)) throw new Error('refused under the budget');
      // counted at once, as an estimate, against the key and the agent
      expect(await store.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 1000, cost: 0.5 });
      // a call in flight: no request yet, and not spent by what calls really spent (the alert rule's view)
      expect(await store.usage.report({ by: 'key' })).toEqual([{ group: 'ci', requests: 0, promptTokens: 200, completionTokens: 800, totalTokens: 1000, estimatedTokens: 1000, cost: 0.5 }]);
      expect(await store.usage.spent({ keyName: 'ci' }, T0, true)).toEqual({ tokens: 0, cost: 0 });
      // settled with what the model counted: the estimate is replaced, not added to
      await store.usage.settle(reserved.id, entry({ keyName: 'ci', agentId: 'sales', model: 'openai/gpt-4o', promptTokens: 200, completionTokens: 100, totalTokens: 300, cost: 0.25 }));
      expect(await store.usage.report({ by: 'model' })).toEqual([{ group: 'openai/gpt-4o', requests: 1, promptTokens: 200, completionTokens: 100, totalTokens: 300, estimatedTokens: 0, cost: 0.25 }]);
      expect(await store.usage.spent({ agentId: 'sales' }, T0)).toEqual({ tokens: 300, cost: 0.25 });
      expect(await store.usage.spent({ agentId: 'sales' }, T0, true)).toEqual({ tokens: 300, cost: 0.25 });
      // a call that spent nothing gives its reservation back
      const second = await store.usage.reserve(entry({ keyName: 'ci', totalTokens: 1000 }), [daily]);
      if (!('id' in second)) throw new Error('refused under the budget');
      expect(await store.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 1300, cost: 0.75 });
      await store.usage.settle(second.id, undefined);
      expect(await store.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 300, cost: 0.25 });
      // an estimate settled as estimated stays marked so
      const third = await store.usage.reserve(entry({ keyName: 'ci', totalTokens: 1000 }), [daily]);
      if (!('id' in third)) throw new Error('refused under the budget');
      await store.usage.settle(third.id, entry({ keyName: 'ci', promptTokens: 40, completionTokens: 60, totalTokens: 100, estimated: true, cost: 0 }));
      expect((await store.usage.report({ by: 'key' }))[0]).toMatchObject({ requests: 2, totalTokens: 400, estimatedTokens: 100 });
    });

    it('refuses a reservation once what was spent reaches a limit, naming that limit and what was spent', async () => {
      const store = await open();
      await store.usage.record([entry({ keyName: 'ci', agentId: 'sales', totalTokens: 1500, cost: 2 }), entry({ keyName: 'ci', at: T0 - DAY, totalTokens: 9000 })]);
      const key: UsageLimit = { whose: { keyName: 'ci' }, since: T0, tokens: 1500 };
      const agent: UsageLimit = { whose: { agentId: 'sales' }, since: T0 - DAY, cost: 10 };
      expect(await store.usage.reserve(entry({ keyName: 'ci', agentId: 'sales' }), [agent, key])).toEqual({ refused: key, spent: { tokens: 1500, cost: 2 } });
      const money: UsageLimit = { whose: { agentId: 'sales' }, since: T0, cost: 2 };
      expect(await store.usage.reserve(entry({ agentId: 'sales' }), [money])).toEqual({ refused: money, spent: { tokens: 1500, cost: 2 } });
      // nothing was stored by the refusals; yesterday's tokens are not today's
      expect(await store.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 1500, cost: 2 });
      expect(await store.usage.reserve(entry({ keyName: 'other', agentId: 'sales' }), [{ whose: { keyName: 'other' }, since: T0, tokens: 1500 }])).toHaveProperty('id');
      expect(await store.usage.reserve(entry({ keyName: 'ci' }), [])).toHaveProperty('id');
    });

    it('lets concurrent reservations from two handles on the database pass a budget by at most the one that crosses it', async () => {
      const a = await open();
      const b = await open(a);
      const daily: UsageLimit = { whose: { keyName: 'ci' }, since: T0, tokens: 1500 };
      const call = () => entry({ keyName: 'ci', agentId: 'sales', promptTokens: 100, completionTokens: 900, totalTokens: 1000 });
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).usage.reserve(call(), [daily, { whose: { agentId: 'sales' }, since: T0, tokens: 5000 }])));
      const granted = outcomes.filter((o) => 'id' in o);
      // the first is under the budget, the second crosses it, the other six find it reached
      expect(granted).toHaveLength(2);
      expect(outcomes.filter((o) => 'refused' in o).map((o) => 'refused' in o && o.refused)).toEqual(Array(6).fill(daily));
      expect(await a.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 2000, cost: 1 });
      // settled through the other handle: what they really spent, and the budget has room again
      for (const [i, o] of granted.entries()) if ('id' in o) await (i ? a : b).usage.settle(o.id, entry({ keyName: 'ci', agentId: 'sales', totalTokens: 500 }));
      expect(await b.usage.spent({ keyName: 'ci' }, T0)).toEqual({ tokens: 1000, cost: 1 });
      expect(await b.usage.reserve(call(), [daily])).toHaveProperty('id');
    });

    it('sums what a call spent on any day, its day in flight and long settled, from a UTC day or from within one', async () => {
      const store = await open();
      const midnight = Date.UTC(2026, 10, 24);
      await store.usage.record([
        entry({ keyName: 'ci', agentId: 'sales', at: midnight - 1, totalTokens: 1, cost: 0.25 }),
        entry({ keyName: 'ci', agentId: 'sales', at: midnight, totalTokens: 2, cost: 0.5 }),
        entry({ keyName: 'ci', at: midnight + DAY - 1, totalTokens: 4, cost: 1 }),
        entry({ agentId: 'sales', at: midnight + 40 * DAY, totalTokens: 8, cost: 2 }),
      ]);
      expect(await store.usage.spent({ keyName: 'ci' }, midnight)).toEqual({ tokens: 6, cost: 1.5 });
      expect(await store.usage.spent({ keyName: 'ci' }, midnight - 1)).toEqual({ tokens: 7, cost: 1.75 });
      expect(await store.usage.spent({ keyName: 'ci' }, midnight + 1)).toEqual({ tokens: 4, cost: 1 });
      expect(await store.usage.spent({ agentId: 'sales' }, midnight + 1)).toEqual({ tokens: 8, cost: 2 });
      // a reservation made on one day and settled on the next counts on the day it was made, as the report has it
      const reserved = await store.usage.reserve(entry({ keyName: 'ci', at: midnight + DAY - 1, totalTokens: 100 }), [{ whose: { keyName: 'ci' }, since: midnight, tokens: 1000 }]);
      if (!('id' in reserved)) throw new Error('refused under the budget');
      expect(await store.usage.spent({ keyName: 'ci' }, midnight + DAY)).toEqual({ tokens: 0, cost: 0 });
      expect(await store.usage.spent({ keyName: 'ci' }, midnight + 1)).toEqual({ tokens: 104, cost: 1.5 });
      expect(await store.usage.spent({ keyName: 'ci' }, midnight, true)).toEqual({ tokens: 6, cost: 1.5 });
      await store.usage.settle(reserved.id, entry({ keyName: 'ci', totalTokens: 10, cost: 0.25 }));
      expect(await store.usage.spent({ keyName: 'ci' }, midnight, true)).toEqual({ tokens: 16, cost: 1.75 });
      // settled again (a retried settle): replaced, not added
      await store.usage.settle(reserved.id, entry({ keyName: 'ci', totalTokens: 20, cost: 0.5 }));
      expect(await store.usage.spent({ keyName: 'ci' }, midnight)).toEqual({ tokens: 26, cost: 2 });
      expect(await store.usage.spent({ keyName: 'ci' }, midnight, true)).toEqual({ tokens: 26, cost: 2 });
      expect((await store.usage.report({ by: 'key', since: midnight + DAY - 1 }))[0]).toMatchObject({ requests: 2, totalTokens: 24 });
      // a settled call given back (released): nothing of it is left
      await store.usage.settle(reserved.id, undefined);
      expect(await store.usage.spent({ keyName: 'ci' }, midnight, true)).toEqual({ tokens: 6, cost: 1.5 });
      expect(await store.usage.spent({ keyName: 'ci' }, midnight)).toEqual({ tokens: 6, cost: 1.5 });
    });

    it('sums what someone spent whenever a budget first asks, and keeps counting: a late row, an earlier day asked after a later one', async () => {
      const a = await open();
      const b = await open(a);
      const day = Date.UTC(2026, 10, 1);
      await a.usage.record([entry({ keyName: 'late', at: day, totalTokens: 1 }), entry({ keyName: 'late', at: day + DAY, totalTokens: 2 }), entry({ keyName: 'late', at: day + 2 * DAY, totalTokens: 4 })]);
      expect(await a.usage.spent({ keyName: 'late' }, day + 2 * DAY)).toEqual({ tokens: 4, cost: 0.5 });
      // written after the first question, through the other handle: today's, and a late one of yesterday
      await b.usage.record([entry({ keyName: 'late', at: day + 2 * DAY + 5, totalTokens: 8 }), entry({ keyName: 'late', at: day + DAY + 5, totalTokens: 16 })]);
      expect(await b.usage.spent({ keyName: 'late' }, day + 2 * DAY)).toEqual({ tokens: 12, cost: 1 });
      // the month asked after the day: the days before summed as they stand
      expect(await a.usage.spent({ keyName: 'late' }, day)).toEqual({ tokens: 31, cost: 2.5 });
      const reserved = await b.usage.reserve(entry({ keyName: 'late', at: day + DAY + 6, totalTokens: 32 }), [{ whose: { keyName: 'late' }, since: day, tokens: 1000 }]);
      if (!('id' in reserved)) throw new Error('refused under the budget');
      expect(await a.usage.spent({ keyName: 'late' }, day + DAY)).toEqual({ tokens: 62, cost: 2.5 });
      await a.usage.settle(reserved.id, entry({ keyName: 'late', totalTokens: 64 }));
      expect(await b.usage.spent({ keyName: 'late' }, day, true)).toEqual({ tokens: 95, cost: 3 });
      expect(await b.usage.spent({ keyName: 'late' }, 0)).toEqual({ tokens: 95, cost: 3 });
    });

    it('counts what was recorded before its totals were kept, reservations in flight apart', async () => {
      const legacy = await beforeTotals();
      await legacy.insertUsage({ at: T0, keyName: 'ci', agentId: 'sales', totalTokens: 100, cost: 1, calls: 1 });
      await legacy.insertUsage({ at: T0 + 1000, keyName: 'ci', agentId: null, totalTokens: 50, cost: 0.5, calls: 0 });
      await legacy.insertUsage({ at: T0 - DAY, keyName: null, agentId: 'sales', totalTokens: 7, cost: 0.25, calls: 2 });
      const store = await legacy.migrate();
      const today = Date.UTC(2026, 10, 24);
      expect(await store.usage.spent({ keyName: 'ci' }, today)).toEqual({ tokens: 150, cost: 1.5 });
      expect(await store.usage.spent({ keyName: 'ci' }, today, true)).toEqual({ tokens: 100, cost: 1 });
      expect(await store.usage.spent({ agentId: 'sales' }, today - DAY)).toEqual({ tokens: 107, cost: 1.25 });
      expect(await store.usage.spent({ agentId: 'sales' }, T0 - DAY + 1)).toEqual({ tokens: 100, cost: 1 });
      await store.usage.record([entry({ keyName: 'ci', agentId: 'sales', totalTokens: 3, cost: 0.25 })]);
      expect(await store.usage.spent({ keyName: 'ci' }, today)).toEqual({ tokens: 153, cost: 1.75 });
      expect(await store.usage.spent({ agentId: 'sales' }, today, true)).toEqual({ tokens: 103, cost: 1.25 });
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
