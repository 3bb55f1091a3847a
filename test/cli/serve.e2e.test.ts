import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, eventually, GATEWAY_TOKEN, HOOK_TOKEN, tempDir } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from './spawn-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

// each spawn pays for tsx and the plugin imports: generous limits, no timing assertions
describe('herald serve (spawned)', { timeout: 90_000 }, () => {
  it('first start: writes a starter herald.json5 and prints the URL, config path and two curl lines that work', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json5');
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    await spawned.waitFor(/curl[^\n]*\/agent[^\n]*\n/);
    const out = spawned.stderr();
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(out).toContain(`wrote a starter config to ${file}`);
    expect(out).toContain(`config: ${file}`);
    const url = out.match(/herald listening on (http:\/\/127\.0\.0\.1:\d+)/)![1]!;

    // the export lines and the curl lines, run by a shell exactly as printed
    const exports = out.split('\n').filter((l) => l.trim().startsWith('export '));
    expect(exports.map((l) => l.trim().split('=')[0])).toEqual(['export HOOK_TOKEN', 'export GATEWAY_TOKEN', 'export HERALD_API_KEY']);
    expect(out).toContain(`Console: ${url}/console`);
    const curls = out.split('\n').filter((l) => l.trim().startsWith('curl '));
    expect(curls).toHaveLength(2);
    for (const line of curls) {
      expect(line.match(/-X POST (\S+)/)![1]!.startsWith(url)).toBe(true);
      const run = spawnSync('bash', ['-c', [...exports, `${line.trim()} -w ' %{http_code}'`].join('\n')], { encoding: 'utf8' });
      const [body, status] = [run.stdout.slice(0, run.stdout.lastIndexOf(' ')), run.stdout.slice(run.stdout.lastIndexOf(' ') + 1)];
      expect(['200', '202']).toContain(status);
      expect(JSON.parse(body)).toMatchObject({ ok: true });
    }

    // the starter config is a real, valid config: it has hooks on and the agent main
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/enabled: true/);
    expect(text).toMatch(/id: 'main'/);

    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
    expect(spawned.stdout()).toMatch(/"msg":"shutting down"/);
    // stdout is the log stream: JSON lines only, the secrets and banner never in it
    for (const line of spawned.stdout().split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
    expect(spawned.stdout()).not.toContain(out.match(/export HOOK_TOKEN=(\S+)/)![1]!);
    expect(fs.existsSync(path.join(dir, 'data', 'herald.db'))).toBe(true);
  });

  it('with no --config writes herald.json5 in the working folder', async () => {
    const dir = tempDir();
    spawned = spawnHerald(['serve', '--port', '0'], { cwd: dir });
    await spawned.waitFor(/curl[^\n]*\/agent/);
    expect(fs.existsSync(path.join(dir, 'herald.json5'))).toBe(true);
    spawned.child.kill('SIGINT');
    expect(await spawned.exited).toBe(0);
  });

  it('names the console\'s URL on every start, not only the first', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json5');
    for (const start of ['first', 'second']) {
      spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
      const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
      // the first start goes on to the starter's secrets and curl lines; a later one prints none
      await spawned.waitFor(start === 'first' ? /curl[^\n]*\/agent[^\n]*\n/ : /Console: [^\n]*\n/);
      expect(spawned.stderr(), start).toContain(`Console: ${url}/console (sign in with the gateway token)\n`);
      expect(spawned.stderr().includes('export HOOK_TOKEN='), start).toBe(start === 'first');
      spawned.child.kill('SIGTERM');
      expect(await spawned.exited).toBe(0);
    }
  });

  it('first start with --config FILE.yaml writes a YAML starter it can read back, and serves', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.yaml');
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    await spawned.waitFor(/curl[^\n]*\/agent[^\n]*\n/);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^hooks:\n {2}enabled: true$/m);
    const url = spawned.stderr().match(/herald listening on (http:\/\/\S+)/)![1]!;
    const token = spawned.stderr().match(/export HOOK_TOKEN=(\S+)/)![1]!;
    const wake = await fetch(`${url}/hooks/wake`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{"text":"yaml"}' });
    expect(wake.status).toBe(200);
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
  });

  it('shuts down gracefully on SIGTERM: answers what it accepted, stops, exits 0, keeps the data', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(file, JSON.stringify(baseConfig()));
    spawned = spawnHerald(['serve', '--config', file]);
    const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const wake = await fetch(`${url}/hooks/wake`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'before shutdown', mode: 'next-heartbeat' }),
    });
    expect(wake.status).toBe(200);
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
    expect(spawned.stdout()).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
    expect(spawned.stdout()).toMatch(/"msg":"stopped"/);

    spawned = spawnHerald(['serve', '--config', file]);
    const again = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const events = await fetch(`${again}/admin/events?session=main`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(((await events.json()) as { data: { text: string }[] }).data.map((e) => e.text)).toContain('before shutdown');
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
  });

  it('keeps what it accepted through a SIGKILL: the event is there and the runs resume after the restart', async () => {
    const fake: FakeServer = await startFakeServer(() => 'hang');
    try {
      const dir = tempDir();
      const file = path.join(dir, 'herald.json');
      const config = baseConfig({
        models: { providers: { fake: { api: 'openai', baseUrl: `${fake.url}/v1` } } },
        // the killed process's claim on the running run (on SQLite taken back at the restart)
        agents: { defaults: { model: 'fake/test-model', maxConcurrent: 1, leaseMs: 1000 } },
      });
      fs.writeFileSync(file, JSON.stringify(config));
      spawned = spawnHerald(['serve', '--config', file]);
      let url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
      const hook = (path: string, body: unknown) =>
        fetch(`${url}/hooks/${path}`, { method: 'POST', headers: { authorization: `Bearer ${HOOK_TOKEN}` }, body: JSON.stringify(body) });
      expect((await hook('wake', { text: 'accepted before the crash', mode: 'next-heartbeat' })).status).toBe(200);
      const ids: string[] = [];
      for (const name of ['Running', 'Queued']) {
        const res = await hook('agent', { message: `${name} run`, name, deliver: false, wakeMode: 'next-heartbeat' });
        expect(res.status).toBe(202);
        ids.push(((await res.json()) as { runId: string }).runId);
      }
      await eventually(() => fake.requests.length === 1);
      spawned.child.kill('SIGKILL');
      await spawned.exited;

      fake.handle(() => ({ body: completion('answered after the crash') }));
      spawned = spawnHerald(['serve', '--config', file]);
      url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
      const admin = async (p: string) => (await fetch(`${url}/admin/${p}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json() as Promise<any>;
      for (const id of ids) {
        const run = await eventually(async () => {
          const r = await admin(`runs/${id}`);
          return r.status === 'succeeded' && r;
        });
        expect(run.reply).toBe('answered after the crash');
      }
      const events = ((await admin('events?session=main')).data as { text: string; untrusted: boolean }[]).map(({ text, untrusted }) => ({ text, untrusted }));
      expect(events).toEqual(
        expect.arrayContaining([
          { text: 'accepted before the crash', untrusted: false },
          { text: 'Hook Running: answered after the crash', untrusted: true },
          { text: 'Hook Queued: answered after the crash', untrusted: true },
        ]),
      );
      spawned.child.kill('SIGTERM');
      expect(await spawned.exited).toBe(0);
    } finally {
      await fake.close();
    }
  });

  it('refuses to start on a config fault, naming the key, with a non-zero exit', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(file, JSON.stringify(baseConfig({ hooks: { token: GATEWAY_TOKEN } })));
    spawned = spawnHerald(['serve', '--config', file]);
    expect(await spawned.exited).not.toBe(0);
    expect(spawned.stderr()).toMatch(/hooks\.token: must differ from gateway\.auth\.token/);
    expect(spawned.stdout()).not.toContain('listening');
  });
});
