import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, HOOK_TOKEN, tempDir } from '../helpers/start-herald.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from './spawn-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

/** `herald serve` traced: the module URLs it resolved and the built-in modules it had loaded when it stopped */
async function servedThen(requests: (url: string) => Promise<void>): Promise<{ modules: string; builtins: string[] }> {
  const dir = tempDir();
  const config = path.join(dir, 'herald.json');
  fs.writeFileSync(config, JSON.stringify(baseConfig()));
  const [modules, builtins] = [path.join(dir, 'modules.txt'), path.join(dir, 'builtins.txt')];
  fs.writeFileSync(modules, '');
  const hook = fileURLToPath(new URL('./trace-loads.mjs', import.meta.url));
  spawned = spawnHerald(['serve', '--config', config], {
    env: { NODE_OPTIONS: `--import ${hook}`, HERALD_TRACE_LOADS: modules, HERALD_TRACE_BUILTINS: builtins },
  });
  const url = (await spawned.waitFor(/herald listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  await requests(url);
  spawned.child.kill('SIGTERM');
  expect(await spawned.exited).toBe(0);
  return { modules: fs.readFileSync(modules, 'utf8'), builtins: fs.readFileSync(builtins, 'utf8').split('\n') };
}

const NODE_FETCH = 'NativeModule internal/deps/undici/undici';
const HTTP2 = 'NativeModule http2';

describe('herald serve loads what its requests use', { timeout: 90_000 }, () => {
  it('answering probes and webhooks loads neither a model client nor hono’s adapter, Node’s fetch or HTTP/2', async () => {
    const { modules, builtins } = await servedThen(async (url) => {
      const health = await fetch(`${url}/healthz`);
      expect([health.status, await health.json()]).toEqual([200, { ok: true }]);
      const wake = await fetch(`${url}/hooks/wake`, {
        method: 'POST',
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(wake.status).toBe(200);
    });
    expect(modules).toContain('/src/http/hooks/');
    for (const unused of ['/node_modules/undici/', '/node_modules/@hono/node-server/', '/node_modules/openai/']) expect(modules, unused).not.toContain(unused);
    // tracing is off: none of OpenTelemetry's SDK, and none of herald's side of it
    for (const unused of ['/node_modules/@opentelemetry/sdk-trace', '/node_modules/@opentelemetry/exporter-trace', 'otel-tracer']) expect(modules, unused).not.toContain(unused);
    expect(builtins).not.toContain(NODE_FETCH);
    expect(builtins).not.toContain(HTTP2);
    // the /v1 routes besides chat completions wait for their first request (the source module, or its chunk in the build)
    expect(modules, '/v1 routes').not.toMatch(/platform-routes/);
  });

  it('loads hono’s adapter with the first request that needs it, and answers it', async () => {
    const { modules, builtins } = await servedThen(async (url) => {
      const agents = await fetch(`${url}/v1/agents`, { headers: { authorization: `Bearer ${API_KEY}` } });
      expect(agents.status).toBe(200);
      expect((await agents.json()) as { data: unknown[] }).toMatchObject({ data: [expect.objectContaining({ id: 'main' })] });
    });
    expect(modules).toContain('/node_modules/@hono/node-server/');
    expect(modules).toMatch(/platform-routes/);
    expect(builtins).toContain(NODE_FETCH);
  });
});
