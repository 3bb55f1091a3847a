import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeResponse, type FakeServer, type RecordedRequest } from '../../helpers/fake-server.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders } from '../../helpers/start-herald.js';
import { completion } from '../../models/fake-openai.js';
import { testApp, type TestApp } from '../app-fixture.js';

/**
 * The Overview's trouble on a real herald: a mapping file saved with a JSONata error, a refused
 * reload, a model provider refusing its calls, an open alert. The provider is a fake
 * OpenAI-compatible server on 127.0.0.1 answering as OpenAI documents a wrong key:
 * 401 `{error: {message: "Incorrect API key provided…", type: "invalid_request_error", code: "invalid_api_key"}}`
 * (https://platform.openai.com/docs/guides/error-codes#api-errors, "401 - Incorrect API key provided").
 */
let herald: TestApp | undefined;
let fake: FakeServer | undefined;
beforeAll(() => {
  delete process.env.OPENAI_API_KEY;
});
afterEach(async () => {
  await herald?.stop();
  await fake?.close();
  herald = fake = undefined;
});

const refusedKey = () => ({
  status: 401,
  body: { error: { message: 'Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
});

const GOOD = `- id: deploys
  match: { path: deploys }
  action: wake
  textTemplate: "Deployed {{ service }}"
`;
// the second mapping's template misses its closing parenthesis: line 8, its value at column 20
const BROKEN = `- id: fine
  match: { path: fine }
  action: wake
  textTemplate: "fine {{ x }}"
- id: bad-one
  match: { path: bad }
  action: agent
  messageTemplate: "Deployed {{ $uppercase(service }}"
`;

/** the model's answers under /v1; the webhook channel's receiver (where alerts go) elsewhere */
const upstream = (model: () => FakeResponse, receiver: () => FakeResponse = () => ({ body: { ok: true } })) => (r: RecordedRequest) => (r.path.startsWith('/v1/') ? model() : receiver());

function config(url: string) {
  return baseConfig({
    hooks: { mappingsDir: './mappings' },
    channels: { webhook: { url: `${url}/alerts` } },
    delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 50 },
    models: { providers: { up: { api: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-wrong' } } },
    agents: { defaults: { model: 'up/m' } },
    alerts: { targets: [{ channel: 'webhook' }], rules: [{ on: 'runs.failing', agent: 'main', count: 1 }] },
  });
}

async function trouble(): Promise<Record<string, any>> {
  const res = await herald!.request('/admin/overview', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { trouble: Record<string, any> }).trouble;
}

async function mappingsList(query: string): Promise<Record<string, any>> {
  const res = await herald!.request(`/admin/mappings${query}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

async function settledRun(): Promise<Record<string, any>> {
  const res = await herald!.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'hi', deliver: false, wakeMode: 'next-heartbeat' }) });
  expect(res.status).toBe(202);
  const { runId } = (await res.json()) as { runId: string };
  return eventually(async () => {
    const run = (await (await herald!.request(`/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as Record<string, any>;
    return ['queued', 'running'].includes(run.status) ? undefined : run;
  });
}

const ALL_CLEAR = { alerts: [], refusedReload: null, restartRequired: null, mappings: [], warnings: [], self: expect.any(String), providers: [], channels: [], toolServers: [] };

describe("the Overview's trouble", () => {
  it('a provider answering 401 is unhealthy with its cause and raises the open alert; a success clears the provider', async () => {
    // the alert's receiver fails too: the channel is unhealthy until a delivery gets through
    fake = await startFakeServer(upstream(refusedKey, () => ({ status: 503, body: 'down' })));
    herald = await testApp(config(fake.url), { files: { 'mappings/deploys.yaml': GOOD } });
    expect(await trouble()).toEqual(ALL_CLEAR);

    expect((await settledRun()).status).toBe('failed');
    const failing = await eventually(async () => {
      const t = await trouble();
      return t.alerts.length > 0 && t.providers.length > 0 && t.channels.length > 0 ? t : undefined;
    });
    expect(failing.providers).toEqual([
      { name: 'up', replica: failing.self, since: expect.any(String), lastOkAt: null, lastFailureAt: expect.any(String), cause: expect.stringMatching(/^401 .*Incorrect API key provided/), consecutiveFailures: 1, stale: false },
    ]);
    expect(failing.alerts).toEqual([{ id: expect.any(String), condition: 'runs.failing', subject: expect.stringContaining('main'), summary: expect.any(String), raisedAt: expect.any(String) }]);

    expect(failing.channels).toEqual([
      { name: 'webhook', replica: failing.self, since: expect.any(String), lastOkAt: null, lastFailureAt: expect.any(String), cause: expect.stringContaining('503'), consecutiveFailures: expect.any(Number), stale: false },
    ]);

    fake.handle(upstream(() => ({ body: completion('hello') })));
    expect((await settledRun()).status).toBe('succeeded');
    expect((await trouble()).providers).toEqual([]);
    // the alert's notice is retried and gets through: the channel is healthy again
    await eventually(async () => (await trouble()).channels.length === 0);
  });

  it('a mapping file saved with a JSONata error shows with its file, mapping, fault and line; fixing it clears it', async () => {
    fake = await startFakeServer(upstream(() => ({ body: completion('hello') })));
    herald = await testApp(config(fake.url), { files: { 'mappings/deploys.yaml': GOOD } });
    const file = path.join(herald.dir, 'mappings', 'broken.yaml');
    // saved into the watched folder: the reload it starts is refused, the running mappings stay
    fs.writeFileSync(file, BROKEN);
    const refused = await eventually(async () => {
      const t = await trouble();
      return t.mappings.length > 0 ? t : undefined;
    });
    expect(refused.mappings).toEqual([
      {
        file,
        index: 1,
        id: 'bad-one',
        field: 'messageTemplate',
        fault: expect.stringMatching(/^mapping "bad-one" \(.*broken\.yaml\[1\]\): messageTemplate: template error in .*Expected "\)" before end of expression \(at \d+\)$/),
        line: 8,
        column: 20,
      },
    ]);
    expect(refused.refusedReload).toEqual({ at: expect.any(String), reason: 'mappingsDir changed', faults: [refused.mappings[0].fault] });
    // the Mappings list names them too, not loaded, beside the ones that run (on every page, whatever the filters but a search)
    const listed = await mappingsList('');
    expect(listed.notLoaded).toEqual(refused.mappings);
    expect(listed.data.map((m: { id: string }) => m.id)).toContain('deploys');
    expect(listed.data.map((m: { id: string }) => m.id)).not.toContain('bad-one');
    expect((await mappingsList('?action=wake&limit=1')).notLoaded).toEqual(refused.mappings);
    // a search narrows them as it narrows the loaded ones: by id, file or fault
    expect(await mappingsList('?q=deploys')).toMatchObject({ data: [{ id: 'deploys' }], notLoaded: [] });
    expect(await mappingsList('?q=BAD-ONE')).toMatchObject({ data: [], notLoaded: refused.mappings });
    expect((await mappingsList('?q=broken.yaml')).notLoaded).toEqual(refused.mappings);
    expect((await mappingsList(`?q=${encodeURIComponent('before end of expression')}`)).notLoaded).toEqual(refused.mappings);
    // absent from the running mappings, as the trouble says
    expect((await herald.request('/hooks/fine', { method: 'POST', headers: hookHeaders(), body: '{}' })).status).toBe(404);

    fs.writeFileSync(file, BROKEN.replace('$uppercase(service }}', '$uppercase(service) }}'));
    await eventually(async () => (await trouble()).refusedReload === null);
    expect(await trouble()).toEqual(ALL_CLEAR);
    expect((await mappingsList('')).notLoaded).toEqual([]);
    expect((await herald.request('/hooks/fine', { method: 'POST', headers: hookHeaders(), body: '{}' })).status).toBe(200);
  });

  it('a refused reload shows its faults until a reload applies; keys a reload leaves for a restart show until then', async () => {
    fake = await startFakeServer(upstream(() => ({ body: completion('hello') })));
    herald = await testApp(config(fake.url));
    const good = fs.readFileSync(herald.configFile, 'utf8');
    fs.writeFileSync(herald.configFile, JSON.stringify({ ...JSON.parse(good), delivery: { maxAttempts: -1 } }));
    const reload = () => herald!.request('/admin/reload', { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect((await reload()).status).toBe(422);
    const refused = (await trouble()).refusedReload;
    expect(refused).toEqual({ at: expect.any(String), reason: 'POST /admin/reload', faults: [expect.stringMatching(/herald\.json: delivery\.maxAttempts: Too small/)] });
    expect((await trouble()).mappings).toEqual([]);

    fs.writeFileSync(herald.configFile, JSON.stringify({ ...JSON.parse(good), gateway: { ...JSON.parse(good).gateway, port: 1 } }));
    expect((await reload()).status).toBe(200);
    const applied = await trouble();
    expect(applied.refusedReload).toBeNull();
    expect(applied.restartRequired).toEqual({ at: expect.any(String), reason: 'POST /admin/reload', keys: ['gateway.port'] });

    fs.writeFileSync(herald.configFile, good);
    expect((await reload()).status).toBe(200);
    expect(await trouble()).toEqual(ALL_CLEAR);
  });
});
