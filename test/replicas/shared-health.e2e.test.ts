import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, requirePostgres, testPgUrl, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, GATEWAY_TOKEN, eventually } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { SseReader } from '../console/sse-events.js';

/**
 * Two heralds on one PostgreSQL schema (replicas behind a load balancer): a model provider
 * refusing replica A's calls shows in replica B's Overview, under A's name, and leaves it once A's
 * calls get through again or A stops. The provider is a fake OpenAI-compatible server on
 * 127.0.0.1 answering as OpenAI documents a wrong key: 401
 * `{error: {message: "Incorrect API key provided…", type: "invalid_request_error", code: "invalid_api_key"}}`
 * (https://platform.openai.com/docs/guides/error-codes#api-errors, "401 - Incorrect API key provided").
 */
let heralds: TestApp[] = [];
let fake: FakeServer | undefined;
let stream: SseReader | undefined;
const schemas: string[] = [];
beforeAll(() => {
  delete process.env.OPENAI_API_KEY;
});
afterEach(async () => {
  await stream?.close();
  stream = undefined;
  for (const h of heralds.splice(0)) await h.stop();
  await fake?.close();
  fake = undefined;
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});

const refusedKey = () => ({
  status: 401,
  body: { error: { message: 'Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
});

async function twoReplicas(url: string): Promise<[TestApp, TestApp]> {
  await requirePostgres();
  const schema = uniqueSchema('herald_health');
  schemas.push(schema);
  const config = {
    storage: { postgres: { url: testPgUrl(), schema, poolSize: 4 } },
    models: { providers: { up: { api: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-wrong' } } },
    agents: { defaults: { model: 'up/m' } },
  };
  // one after the other: the first migrates the schema
  heralds.push(await testApp(config));
  heralds.push(await testApp(config));
  return heralds as [TestApp, TestApp];
}

/** a chat turn answered on `herald` itself (a hook run could be claimed by either replica) */
async function chat(herald: TestApp): Promise<number> {
  const res = await herald.request('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'main', messages: [{ role: 'user', content: 'hello' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function trouble(herald: TestApp): Promise<Record<string, any>> {
  const res = await herald.request('/admin/overview', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { trouble: Record<string, any> }).trouble;
}

describe("unhealthy parts in the Overview across replicas on PostgreSQL", () => {
  it("shows on replica B the provider refusing replica A's calls, until A's calls succeed again", async () => {
    fake = await startFakeServer(refusedKey);
    const [a, b] = await twoReplicas(fake.url);
    const aSelf = (await trouble(a)).self;
    expect((await trouble(b)).self).not.toBe(aSelf);
    expect((await trouble(b)).providers).toEqual([]);

    expect(await chat(a)).not.toBe(200);
    const seen = await eventually(async () => {
      const t = await trouble(b);
      return t.providers.length > 0 ? t : undefined;
    });
    expect(seen.providers).toEqual([
      { name: 'up', replica: aSelf, since: expect.any(String), lastOkAt: null, lastFailureAt: expect.any(String), cause: expect.stringMatching(/^401 .*Incorrect API key provided/), consecutiveFailures: 1, stale: false },
    ]);
    // the upstream's message echoes the key it refused: the cause shared through the store masks it
    expect(seen.providers[0].cause).toContain('Incorrect API key provided: ***');
    expect(JSON.stringify(seen)).not.toContain('sk-wrong');
    // A shows its own, from its memory, once
    expect((await trouble(a)).providers).toEqual([expect.objectContaining({ name: 'up', replica: aSelf, stale: false })]);

    fake.handle(() => ({ body: completion('hello') }));
    expect(await chat(a)).toBe(200);
    await eventually(async () => (await trouble(b)).providers.length === 0);
    expect((await trouble(a)).providers).toEqual([]);
  });

  it("reaches replica B's live Overview without polling", async () => {
    fake = await startFakeServer(refusedKey);
    const [a, b] = await twoReplicas(fake.url);
    const res = await b.request('/admin/stream', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(res.status).toBe(200);
    stream = new SseReader(res.body!);
    expect(JSON.parse((await stream.next('overview')).data).trouble.providers).toEqual([]);
    expect(await chat(a)).not.toBe(200);
    const live = await stream.until<any>('overview', (o) => o.trouble.providers.length === 1);
    expect(live.trouble.providers[0]).toMatchObject({ name: 'up', replica: (await trouble(a)).self, stale: false });
  });

  it("drops a replica's unhealthy parts when it stops", async () => {
    fake = await startFakeServer(refusedKey);
    const [a, b] = await twoReplicas(fake.url);
    expect(await chat(a)).not.toBe(200);
    await eventually(async () => (await trouble(b)).providers.length === 1);
    await a.stop();
    heralds.splice(heralds.indexOf(a), 1);
    expect((await trouble(b)).providers).toEqual([]);
  });
});
