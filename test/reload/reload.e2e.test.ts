import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { main } from '../../src/cli/main.js';
import { builtinPlugins } from '../../plugins/index.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, baseConfig, eventually, GATEWAY_TOKEN, HOOK_TOKEN, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';

let herald: TestApp | undefined;
let fake: FakeServer | undefined;
let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await fake?.close();
  fake = undefined;
  if (spawned && spawned.child.exitCode === null) {
    spawned.child.kill('SIGKILL');
    await spawned.exited;
  }
  spawned = undefined;
});

/** a request to a gateway: the app's `request`, or `fetch` on a spawned herald's URL */
type Send = (path: string, init?: RequestInit) => Promise<Response>;

const hook = (send: Send, name: string, body: unknown) =>
  send(`/hooks/${name}`, { method: 'POST', headers: { Authorization: `Bearer ${HOOK_TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const agents = async (send: Send, key = API_KEY) => {
  const res = await send(`/v1/agents`, { headers: { Authorization: `Bearer ${key}` } });
  return res.status === 200 ? ((await res.json()) as { data: { id: string }[] }).data.map((a) => a.id) : res.status;
};
const writeConfig = (file: string, config: Record<string, unknown>) => fs.writeFileSync(file, JSON.stringify(config, null, 2));

describe('config reload', () => {
  it('applies mappings, agents, keys, limits and channels at once; names restart-only settings', async () => {
    fake = await startFakeServer(() => ({ body: { ok: true } }));
    herald = await testApp({});
    expect((await hook(herald.request, 'deploys', { service: 'api' })).status).toBe(404);
    expect(await agents(herald.request)).toEqual(['main']);

    const NEW_KEY = 'sk-new-key-0123456789abcdef';
    writeConfig(
      herald.configFile,
      baseConfig({
        gateway: { port: 1 },
        hooks: {
          maxBodyBytes: 64,
          mappings: [{ id: 'deploys', match: { path: 'deploys' }, action: 'wake', textTemplate: 'Deployed {{service}}' }],
        },
        agents: { list: [{ id: 'main' }, { id: 'support', name: 'Support desk' }] },
        platform: { apiKeys: [{ name: 'new', key: NEW_KEY }] },
        channels: { webhook: { url: `${fake.url}/replies` } },
      }),
    );
    const result = await herald.gateway.reload('test');
    expect(result).toMatchObject({ ok: true, restartRequired: ['gateway.port'] });
    expect(result.changed).toEqual(expect.arrayContaining(['hooks.maxBodyBytes', 'hooks.mappings', 'agents.list', 'platform.apiKeys', 'channels.webhook']));
    expect(result.changed).not.toContain('gateway.port');

    // mapping
    expect(await (await hook(herald.request, 'deploys', { service: 'api' })).json()).toEqual({ ok: true, mode: 'now', eventOutcome: 'queued' });
    // limit
    expect((await hook(herald.request, 'wake', { text: 'x'.repeat(100) })).status).toBe(413);
    // agents and keys: the removed key is refused at once, the new one works
    expect(await agents(herald.request)).toBe(401);
    expect(await agents(herald.request, NEW_KEY)).toEqual(['main', 'support']);
    // channel: a reply delivered to the newly configured webhook channel
    expect((await hook(herald.request, 'agent', { message: 'hi', channel: 'webhook', to: 'ops' })).status).toBe(202);
    await eventually(() => fake!.requests.some((r) => r.path === '/replies'));
    // the port stays what it was, and the log says a restart is needed for it
    expect(herald.gateway.config.gateway.port).toBe(0);
    expect(herald.logs.find((l) => l.msg === 'config reloaded')).toMatchObject({ reason: 'test' });
    expect(herald.logs.find((l) => String(l.msg).startsWith('config reloaded, but'))).toMatchObject({ level: 40, restartRequired: ['gateway.port'] });
  });

  it('refuses a config that fails to validate, logs the faults, and keeps the running one', async () => {
    herald = await testApp({ hooks: { mappings: [{ id: 'deploys', match: { path: 'deploys' }, action: 'wake', textTemplate: 'Deployed {{service}}' }] } });
    writeConfig(herald.configFile, { ...baseConfig({ hooks: { mappings: [] } }), agentz: {} });
    const result = await herald.gateway.reload('test');
    expect(result.ok).toBe(false);
    expect(result.faults!.join('\n')).toMatch(/agentz: unknown key/);
    const refused = herald.logs.find((l) => l.msg === 'config reload refused: the running config stays');
    expect(refused).toMatchObject({ level: 50 });
    expect(JSON.stringify(refused)).toMatch(/agentz: unknown key/);
    expect((await hook(herald.request, 'deploys', { service: 'api' })).status).toBe(200);

    // over HTTP: 422 with the faults
    const res = await herald.request(`/admin/reload`, { method: 'POST', headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ ok: false, error: 'the config file has faults; the running config stays', details: [expect.stringMatching(/agentz: unknown key/)] });
  });

  it('a mapping file added to or edited in mappingsDir is picked up without a signal', async () => {
    herald = await testApp({}, { files: { 'mappings/.keep': '' } });
    expect((await hook(herald.request, 'alerts', { status: 'firing' })).status).toBe(404);
    fs.writeFileSync(path.join(herald.dir, 'mappings', 'alerts.yaml'), 'id: alerts\nmatch: { path: alerts }\naction: wake\ntextTemplate: "Alert {{status}}"\n');
    await eventually(async () => (await hook(herald!.request, 'alerts', { status: 'firing' })).status === 200);
    // a broken edit is refused: the last good mapping keeps answering
    fs.writeFileSync(path.join(herald.dir, 'mappings', 'alerts.yaml'), 'id: alerts\nmatch: { path: alerts }\naction: wake\ntextTemplate: "Alert {{ status + }}"\n');
    await eventually(() => herald!.logs.some((l) => l.msg === 'config reload refused: the running config stays'));
    expect((await hook(herald.request, 'alerts', { status: 'firing' })).status).toBe(200);
  });

  it('herald serve reloads on SIGHUP (and stays up), and on `herald reload`', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    writeConfig(file, baseConfig());
    spawned = spawnHerald(['serve', '--config', file]);
    const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const send: Send = (p, init) => fetch(`${url}${p}`, init);
    writeConfig(file, baseConfig({ agents: { list: [{ id: 'main' }, { id: 'sales' }] } }));
    spawned.child.kill('SIGHUP');
    await spawned.waitFor(/"msg":"config reloaded"/);
    expect(await agents(send)).toEqual(['main', 'sales']);

    writeConfig(file, { ...baseConfig({ gateway: { port: Number(new URL(url).port) } }), agents: { list: [{ id: 'main' }, { id: 'sales' }, { id: 'support' }] } });
    const out: string[] = [];
    const io: CliIo = { out: (l) => out.push(l), err: (l) => out.push(l), stdout: process.stdout, stderr: process.stderr };
    expect(await main(['reload', '--config', file], builtinPlugins, io), out.join('\n')).toBe(0);
    expect(out.join('\n')).toContain('  applied: agents.list');
    expect(await agents(send)).toEqual(['main', 'sales', 'support']);
    expect(spawned.child.exitCode).toBeNull();
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
  });

  it('`herald reload` says what it applied and what waits for a restart; "refused" only for a file with faults', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    writeConfig(file, baseConfig());
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const reload = async () => {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr };
      const code = await main(['reload', '--config', file, '--url', url], builtinPlugins, io);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    writeConfig(file, baseConfig({ gateway: { trustedProxies: ['10.0.0.1'] }, agents: { list: [{ id: 'main' }, { id: 'sales' }] } }));
    expect(await reload()).toEqual({
      code: 0,
      out: `reloaded ${file}\n  applied: agents.list\n  waiting for a restart (the running values stay until then): gateway.trustedProxies`,
      err: '',
    });
    expect(await agents((p, init) => fetch(`${url}${p}`, init))).toEqual(['main', 'sales']);

    // a template the gateway cannot compile: the file loads, the gateway refuses it
    writeConfig(file, baseConfig({ hooks: { mappings: [{ id: 'bad', match: { path: 'bad' }, action: 'wake', textTemplate: '{{ text + }}' }] } }));
    const refused = await reload();
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('');
    expect(refused.err.split('\n')[0]).toBe('herald reload: refused: 422 the config file has faults; the running config stays');
    expect(refused.err).toContain('mapping "bad"');
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
  });

  it('`herald reload` that finds no gateway at the config\'s address says that one started with --port needs --url', async () => {
    const file = path.join(tempDir(), 'herald.json');
    // a port that was free a moment ago: nothing listens there
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    writeConfig(file, baseConfig({ gateway: { port } }));
    const out: string[] = [];
    const io: CliIo = { out: (l) => out.push(l), err: (l) => out.push(l), stdout: process.stdout, stderr: process.stderr };
    expect(await main(['reload', '--config', file], builtinPlugins, io)).toBe(1);
    expect(out.join('\n')).toBe(
      `herald reload: cannot reach http://127.0.0.1:${port} (the config's gateway.host and gateway.port; a gateway started with --port or --host needs --url http://127.0.0.1:PORT) (ECONNREFUSED); is \`herald serve\` running?`,
    );
  });

  it('a port given by `herald serve --port` is not a change needing a restart at every reload', { timeout: 90_000 }, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    // the file names a port the gateway does not listen on: --port stands over it
    writeConfig(file, baseConfig({ gateway: { port: 1 } }));
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    writeConfig(file, baseConfig({ gateway: { port: 1 }, agents: { list: [{ id: 'main' }, { id: 'sales' }] } }));
    const out: string[] = [];
    const io: CliIo = { out: (l) => out.push(l), err: (l) => out.push(l), stdout: process.stdout, stderr: process.stderr };
    expect(await main(['reload', '--config', file, '--url', url], builtinPlugins, io), out.join('\n')).toBe(0);
    expect(out.join('\n')).toBe(`reloaded ${file}\n  applied: agents.list`);
    const overview = await fetch(`${url}/admin/overview`, { headers: { Authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(((await overview.json()) as { trouble: { restartRequired: unknown } }).trouble.restartRequired).toBeNull();
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
  });
});
