import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { eventually, GATEWAY_TOKEN, HOOK_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await fake?.close();
  fake = undefined;
  delete process.env.HERALD_LOG_LEVEL;
});

/** a gateway whose logger is built as serve builds it (level from the config) */
const gatewayLogging = (overrides: Record<string, unknown>) => testApp(overrides, { logLevel: 'config' });

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

describe('logs', () => {
  it('are JSON lines with an ISO-8601 time; /healthz and /readyz only at debug', async () => {
    const info = await gatewayLogging({});
    await info.request('/healthz');
    await info.request('/readyz');
    await info.request('/admin/events', { headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const lines = info.logs.filter((l) => l.msg === 'request');
    expect(lines.map((l) => l.path)).toEqual(['/admin/events']);
    expect(lines[0]!.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const debug = await gatewayLogging({ gateway: { log: { level: 'debug' } } });
    await debug.request('/healthz');
    expect(debug.logs.find((l) => l.path === '/healthz')).toMatchObject({ level: 20, status: 200 });
  });

  it('HERALD_LOG_LEVEL wins over gateway.log.level', async () => {
    process.env.HERALD_LOG_LEVEL = 'warn';
    const app = await gatewayLogging({ gateway: { log: { level: 'debug' } } });
    await app.request('/admin/events', { headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(app.logs.filter((l) => l.msg === 'request')).toEqual([]);
  });

  it('a model provider failure names its cause: the refused address, or the upstream status and code', async () => {
    const port = await closedPort();
    fake = await startFakeServer(() => ({
      status: 429,
      headers: { 'x-request-id': 'req_upstream_1' },
      // OpenAI's error body: https://platform.openai.com/docs/guides/error-codes
      body: { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    }));
    herald = await testApp({
      models: {
        providers: {
          down: { api: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-down-0123456789' },
          limited: { api: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'sk-limited-0123456789' },
        },
      },
    });
    const agent = (model: string) =>
      herald!.request(`/hooks/agent`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${HOOK_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: 'secret prompt text', model, deliver: false, wakeMode: 'next-heartbeat' }),
      });
    expect((await agent('down/m')).status).toBe(202);
    const refused = await eventually(() => herald!.logs.find((l) => l.msg === 'run failed'));
    expect(refused).toMatchObject({ cause: `ECONNREFUSED 127.0.0.1:${port}` });

    expect((await agent('limited/m')).status).toBe(202);
    const limited = await eventually(() => herald!.logs.filter((l) => l.msg === 'run failed')[1]);
    expect(limited).toMatchObject({ upstreamStatus: 429, upstreamCode: 'rate_limit_exceeded', upstreamRequestId: 'req_upstream_1' });
    expect(herald.rawLogs()).not.toContain('secret prompt text');
  });
});
