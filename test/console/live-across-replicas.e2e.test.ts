import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { baseConfig, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { SseReader } from './sse-events.js';

/**
 * Two heralds on one PostgreSQL schema (two replicas behind a load balancer): a console connected
 * to one sees, live, a webhook the other received. The change crosses by LISTEN/NOTIFY; nothing
 * polls the store.
 */
describe('the live stream across replicas on PostgreSQL', () => {
  const schema = uniqueSchema('herald_live');
  const heralds: TestApp[] = [];
  let stream: SseReader | undefined;

  beforeAll(async () => {
    await requirePostgres();
    const config = baseConfig({ storage: { postgres: { url: PG_URL, schema, poolSize: 4 } } });
    // one after the other: the first migrates the schema
    heralds.push(await testApp(config));
    heralds.push(await testApp(config));
  }, 60_000);

  afterAll(async () => {
    await stream?.close();
    for (const h of heralds) await h.stop();
    await dropSchema(schema);
  });

  it('shows on one herald a webhook posted to the other', async () => {
    const [watched, other] = heralds as [TestApp, TestApp];
    const res = await watched.request(`/admin/stream`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(res.status).toBe(200);
    stream = new SseReader(res.body!);
    const first = JSON.parse((await stream.next('overview')).data);
    expect(first.perMinute.requests).toEqual([]);

    const posted = await other.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'From the other replica', deliver: false }) });
    expect(posted.status).toBe(202);
    const { runId } = (await posted.json()) as { runId: string };

    const kinds = new Set<string>();
    await stream.until<{ kinds: string[] }>('change', (change) => {
      change.kinds.forEach((k) => kinds.add(k));
      return kinds.has('receipts') && kinds.has('runs');
    });
    const overview = await stream.until<any>('overview', (o) => o.perMinute.requests.reduce((n: number, m: any) => n + m.total, 0) === 1);
    expect(overview.perMinute.requests[0].failed).toBe(0);
    // and what the page then reloads, on the watched herald, holds the other's run
    const runs = (await (await watched.request(`/admin/runs`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { data: { id: string }[] };
    expect(runs.data.map((r) => r.id)).toContain(runId);
  });
});
