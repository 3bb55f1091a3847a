import net from 'node:net';
import { Writable } from 'node:stream';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { createGateway, type Gateway } from '../../src/gateway/gateway.js';
import { createLogger } from '../../src/log/log.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, eventually, GATEWAY_TOKEN, HOOK_TOKEN, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
let fake: FakeServer | undefined;
const gateways: Gateway[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await fake?.close();
  fake = undefined;
  for (const g of gateways.splice(0)) await g.stop(0);
  delete process.env.HERALD_LOG_LEVEL;
});

/** a gateway whose logger is built as serve builds it (level from the config), lines captured */
async function gatewayLogging(overrides: Record<string, unknown>) {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _e, cb) => (lines.push(...String(chunk).split('\n').filter(Boolean)), cb()) });
  const loaded = await loadConfigValue(baseConfig(overrides), path.join(tempDir(), 'herald.json'));
  const gateway = await createGateway(loaded, { logger: createLogger({ level: loaded.config.gateway.log.level, destination }) });
  gateways.push(gateway);
  return { gateway, logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

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
    await info.gateway.app.request('/healthz');
    await info.gateway.app.request('/readyz');
    await info.gateway.app.request('/admin/events', { headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const lines = info.logs().filter((l) => l.msg === 'request');
    expect(lines.map((l) => l.path)).toEqual(['/admin/events']);
    expect(lines[0]!.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const debug = await gatewayLogging({ gateway: { log: { level: 'debug' } } });
    await debug.gateway.app.request('/healthz');
    expect(debug.logs().find((l) => l.path === '/healthz')).toMatchObject({ level: 20, status: 200 });
  });

  it('HERALD_LOG_LEVEL wins over gateway.log.level', async () => {
    process.env.HERALD_LOG_LEVEL = 'warn';
    const { gateway, logs } = await gatewayLogging({ gateway: { log: { level: 'debug' } } });
    await gateway.app.request('/admin/events', { headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(logs().filter((l) => l.msg === 'request')).toEqual([]);
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
      },
    );
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
