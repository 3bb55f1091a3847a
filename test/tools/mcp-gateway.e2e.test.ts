import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { alertTexts, config as alertConfig, platforms as startPlatforms } from '../runtime/alert-platforms.js';
import { EVERYTHING } from './mcp-fixture.js';

/** herald with MCP servers: its start never waits for them, and their health is in /readyz, /metrics and alerts */
let fakes: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

const EVERYTHING_MAIN = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const state = (herald: TestApp, server: string) => herald.gateway.mcp.health().find((h) => h.server === server)?.state;

/** the value of one sample of the Prometheus text format, undefined when the series is absent */
async function sample(herald: TestApp, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const text = await (await herald.request('/metrics', { headers: admin })).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',');
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${want}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('herald with MCP servers', () => {
  it('starts while a server cannot, stays ready (tools degraded in /readyz), and shows each server in /metrics', async () => {
    const herald = await testApp({ tools: { mcpServers: { everything: { command: EVERYTHING }, missing: { command: 'herald-no-such-mcp-server' } } } });
    // start() has returned: whatever the servers do, herald takes work
    await eventually(() => state(herald, 'missing') === 'failed');
    const ready = await herald.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ok: true, degraded: { tools: { missing: 'failed' } } });

    await eventually(() => state(herald, 'everything') === 'ready', 15_000);
    expect(herald.gateway.mcp.tools().some((t) => t.name === 'everything__echo')).toBe(true);
    expect(await sample(herald, 'herald_tool_server_up', { server: 'everything' })).toBe(1);
    expect(await sample(herald, 'herald_tool_server_up', { server: 'missing' })).toBe(0);
    expect(await sample(herald, 'herald_tool_server_tools', { server: 'everything' })).toBe(herald.gateway.mcp.tools().length);

    // the turn's loop counts each call's end
    herald.gateway.metrics!.toolCallFinished('everything', 'echo', 'succeeded', 0.02);
    expect(await sample(herald, 'herald_tool_calls_total', { server: 'everything', tool: 'echo', outcome: 'succeeded', source: 'agent' })).toBe(1);
    expect(await sample(herald, 'herald_tool_call_duration_seconds_count', { server: 'everything' })).toBe(1);
  });

  it('connects again only the servers a reload changed, stops removed ones and starts added ones', async () => {
    const tools = (servers: Record<string, unknown>) => ({ tools: { mcpServers: servers } });
    const herald = await testApp(tools({ kept: { command: EVERYTHING }, changed: { command: EVERYTHING }, removed: { command: EVERYTHING } }));
    await eventually(() => herald.gateway.mcp.health().every((h) => h.state === 'ready'), 20_000);
    const keptSince = herald.gateway.mcp.health().find((h) => h.server === 'kept')!.since;

    const file = path.join(herald.dir, 'herald.json');
    const next = JSON.parse(fs.readFileSync(file, 'utf8'));
    next.tools = { mcpServers: { kept: { command: EVERYTHING }, changed: { command: EVERYTHING, env: { CHANGED: '1' } }, added: { command: EVERYTHING } } };
    fs.writeFileSync(file, JSON.stringify(next));
    const result = await herald.gateway.reload('test');
    expect(result.ok).toBe(true);
    expect(result.changed).toContain('tools.mcpServers');
    expect(herald.gateway.mcp.health().map((h) => h.server).sort()).toEqual(['added', 'changed', 'kept']);
    await eventually(() => herald.gateway.mcp.health().every((h) => h.state === 'ready'), 20_000);
    // the kept server's connection is the same; the changed one runs with its new env
    expect(herald.gateway.mcp.health().find((h) => h.server === 'kept')!.since).toBe(keptSince);
    const env = await herald.gateway.mcp.call(herald.gateway.mcp.tools().find((t) => t.name === 'changed__get-env')!, {}, { timeoutMs: 10_000 });
    expect(JSON.parse(env.text).CHANGED).toBe('1');
    expect(herald.gateway.mcp.tools().some((t) => t.server === 'removed')).toBe(false);
  }, 60_000);

  it('tools.unhealthy: raised for a server not connected past `after`, resolved once it connects', async () => {
    const p = await startPlatforms(async (handler) => {
      const server = await startFakeServer(handler);
      fakes.push(server);
      return server;
    });
    // `node server.mjs` in the config's folder: the script is not there yet, so node exits at once
    const herald = await testApp(
      alertConfig(p, {
        tools: { mcpServers: { late: { command: process.execPath, args: ['server.mjs'] } } },
        alerts: { rules: [{ on: 'tools.unhealthy', after: '200ms' }] },
      }),
    );
    const raised = await eventually(() => alertTexts(p).find((t) => t.startsWith('herald alert: tools.unhealthy')));
    expect(raised).toContain('the MCP server late is not connected');
    await eventually(() => herald.gateway.mcp.health()[0]!.lastError?.startsWith('the server exited before it was ready'));
    expect((await herald.request('/readyz')).status).toBe(200);

    // the script appears: the next attempt connects, and the incident resolves
    fs.writeFileSync(path.join(herald.dir, 'server.mjs'), `import ${JSON.stringify(EVERYTHING_MAIN)};\n`);
    await eventually(() => state(herald, 'late') === 'ready', 60_000);
    await eventually(() => alertTexts(p).some((t) => t.startsWith('herald resolved: tools.unhealthy')), 15_000);
  }, 90_000);
});
