import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEntry } from '../../src/store/port.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';

const DAY = Date.UTC(2026, 10, 24);
const schema = uniqueSchema();
const opened: PostgresStore[] = [];
const open = async () => {
  const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 6 });
  opened.push(store);
  return store;
};

beforeAll(requirePostgres);
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await dropSchema(schema);
});

const call = (keyName: string, i: number): UsageEntry => ({
  at: DAY + i,
  source: 'chat',
  model: 'openai/gpt-4o-mini',
  keyName,
  agentId: 'sales',
  promptTokens: 1,
  completionTokens: i % 7,
  totalTokens: 1 + (i % 7),
  estimated: false,
  cost: 0.25,
});

describe('postgres usage totals', () => {
  it("counts every row exactly when one replica first asks what a key spent while another replica writes that key's usage", { timeout: 60_000 }, async () => {
    const writer = await open();
    const asker = await open();
    const keys = Array.from({ length: 8 }, (_, i) => `hot-${i}`);
    let stop = false;
    let written = 0;
    // four writers at once on the first replica: recorded calls, and reservations settled or given back
    const write = async (w: number) => {
      for (let i = w; !stop; i += 4) {
        const keyName = keys[i % keys.length]!;
        if (i % 3) await writer.usage.record([call(keyName, i)]);
        else {
          const reserved = await writer.usage.reserve({ ...call(keyName, i), totalTokens: 100 }, []);
          if ('id' in reserved) await writer.usage.settle(reserved.id, i % 2 ? call(keyName, i) : undefined);
        }
        written++;
      }
    };
    const writers = [0, 1, 2, 3].map(write);
    // the other replica asks about each key for the first time while those writes go on
    for (const keyName of keys) {
      const before = written;
      while (written < before + 20) await new Promise((r) => setTimeout(r, 2));
      await asker.usage.spent({ keyName }, DAY);
    }
    const after = written;
    while (written < after + 50) await new Promise((r) => setTimeout(r, 2));
    stop = true;
    await Promise.all(writers);

    const { rows } = await asker.pool.query<{ key: string; tokens: number; cost: number; settled: number }>(
      `SELECT key_name AS key, SUM(total_tokens)::float8 AS tokens, SUM(cost)::float8 AS cost, SUM(CASE WHEN calls > 0 THEN total_tokens ELSE 0 END)::float8 AS settled
       FROM usage GROUP BY key_name ORDER BY key_name`,
    );
    const totals = await Promise.all(
      keys.map(async (keyName) => ({ key: keyName, ...(await writer.usage.spent({ keyName }, DAY)), settled: (await asker.usage.spent({ keyName }, DAY, true)).tokens })),
    );
    expect(totals).toEqual(rows);
  });
});
