import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GmailWatcher } from '../../../plugins/gmail/watcher/gmail-watcher.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { baseConfig, eventually, startHerald, tempDir, HOOK_TOKEN } from '../../helpers/start-herald.js';
import { CLIENT_ID, CLIENT_SECRET, FakeGoogle, REFRESH_TOKEN, pushEnvelope } from './fake-google.js';
import { sqliteDb } from '../../helpers/sqlite-db.js';

const ACCOUNT = 'me@example.com';
const PUSH_TOKEN = 'push-token-0123456789abcdef';

describe('starting and stopping the gmail watcher', () => {
  let google: FakeGoogle;
  let hook: FakeServer;

  beforeEach(async () => {
    google = await FakeGoogle.start();
    hook = await startFakeServer(() => ({ status: 202, body: { ok: true, runId: 'r' } }));
  });
  afterEach(async () => {
    await hook.close();
    await google.server.close();
  });

  function gmailSection(overrides: Record<string, unknown> = {}) {
    return {
      account: ACCOUNT,
      topic: 'projects/proj/topics/gog-gmail-watch',
      pushToken: PUSH_TOKEN,
      hookUrl: `${hook.url}/hooks/gmail`,
      serve: { bind: '127.0.0.1', port: 0, path: '/gmail-pubsub' },
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN },
      endpoints: google.endpoints(),
      ...overrides,
    };
  }

  it('does not start without hooks.gmail.account, or with HERALD_SKIP_GMAIL_WATCHER=1', async () => {
    const without = await startHerald(baseConfig({ hooks: { presets: ['gmail'], gmail: gmailSection({ account: undefined }) } }));
    expect(without.gateway.instances.services.filter((s) => s.name === 'gmail-watcher')).toHaveLength(0);
    await without.stop();

    process.env.HERALD_SKIP_GMAIL_WATCHER = '1';
    try {
      const skipped = await startHerald(baseConfig({ hooks: { gmail: gmailSection() } }));
      expect(skipped.gateway.instances.services.filter((s) => s.name === 'gmail-watcher')).toHaveLength(0);
      await skipped.stop();
    } finally {
      delete process.env.HERALD_SKIP_GMAIL_WATCHER;
    }
    expect(google.requests).toHaveLength(0);
  });

  it('a push port already in use is a clear error', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(startHerald(baseConfig({ hooks: { gmail: gmailSection({ serve: { bind: '127.0.0.1', port, path: '/gmail-pubsub' } }) } }))).rejects.toThrow(
        `hooks.gmail.serve.port: 127.0.0.1:${port} is already in use`,
      );
    } finally {
      blocker.close();
    }
  });

  it('a failing watch is logged and retried, never a crash', async () => {
    google.failures.set('/gmail/v1/users/me/watch', { status: 503, body: { error: { code: 503, message: 'backend error', status: 'UNAVAILABLE' } } });
    const herald = await startHerald(baseConfig({ hooks: { gmail: gmailSection() } }));
    try {
      await eventually(() => herald.logs.some((l) => l.msg === 'gmail watch failed; retrying'));
      google.failures.clear();
      await eventually(() => herald.logs.some((l) => l.msg === 'gmail watch renewed'));
      expect(google.calls('POST', '/gmail/v1/users/me/watch').length).toBeGreaterThanOrEqual(2);
    } finally {
      await herald.stop();
    }
  });

  it('without the gmail preset: a warning at start names the fix; mail answered 404 is kept until it is fixed', async () => {
    // the hook is the real herald (through a relay: its port is known only once it runs)
    let heraldUrl = '';
    const relay = await startFakeServer(async (r) => {
      const headers = { authorization: String(r.headers.authorization), 'content-type': 'application/json' };
      // while herald restarts the watcher's retry finds nobody: a relay answers 502 then, as a proxy would
      const response = await fetch(`${heraldUrl}/hooks/gmail`, { method: 'POST', headers, body: r.body }).catch(() => undefined);
      return response ? { status: response.status, body: await response.text() } : { status: 502, body: 'herald is away' };
    });
    const config = baseConfig({ hooks: { presets: [], gmail: gmailSection({ hookUrl: `${relay.url}/hooks/gmail` }) } });
    let herald = await startHerald(config);
    try {
      heraldUrl = herald.url;
      const warning = herald.logs.find((l) => String(l.msg).includes('no mapping handles path "gmail"'));
      expect(warning).toMatchObject({ level: 40, fix: 'hooks.presets: add "gmail"' });
      expect(String(warning!.msg)).toContain('hooks.presets: add "gmail"');

      await eventually(() => google.calls('POST', '/gmail/v1/users/me/watch').length > 0);
      const historyId = google.addMail({ id: 'nf-1', subject: 'waits for the preset', text: 'x' });
      const watcher = herald.gateway.instances.services.find((s) => s.name === 'gmail-watcher') as GmailWatcher;
      expect((await fetch(`${watcher.url}?token=${PUSH_TOKEN}`, { method: 'POST', body: JSON.stringify(pushEnvelope(ACCOUNT, historyId)) })).status).toBe(204);
      // retried (the same message, the same key), but the fix is logged once for the message
      await eventually(() => relay.requests.length >= 2);
      const notRouted = herald.logs.filter((l) => String(l.msg).startsWith('gmail hook answered 404'));
      expect(notRouted).toHaveLength(1);
      expect(notRouted[0]).toMatchObject({ messageId: 'nf-1', status: 404 });
      expect(String(notRouted[0]!.msg)).toContain('hooks.presets: add "gmail"');
      expect(new Set(relay.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([`gmail:${ACCOUNT}:nf-1`]));

      // the fix, and a restart: the kept message becomes a run
      await herald.stop();
      fs.writeFileSync(herald.configFile, JSON.stringify(baseConfig({ hooks: { presets: ['gmail'], gmail: gmailSection({ hookUrl: `${relay.url}/hooks/gmail` }) } })));
      herald = await startHerald(config, { dir: herald.dir });
      heraldUrl = herald.url;
      const runs = () => sqliteDb(herald.gateway.store).prepare('SELECT id FROM runs WHERE session_key = ?').all('hook:gmail:nf-1');
      await eventually(() => runs().length === 1);
      expect(herald.logs.some((l) => String(l.msg).includes('no mapping handles path "gmail"'))).toBe(false);
    } finally {
      await herald.stop();
      await relay.close();
    }
  });

  it('`herald webhooks gmail run` runs the watcher alone', async () => {
    const dir = tempDir('herald-gmail-run-');
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(file, JSON.stringify(baseConfig({ hooks: { gmail: gmailSection() } })));
    const child = spawn(process.execPath, ['bin/herald.mjs', 'webhooks', 'gmail', 'run', '--config', file], { cwd: path.resolve(import.meta.dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    try {
      const url = (await eventually(() => /push endpoint (http:\S+)/.exec(output), 20_000))[1]!;
      await eventually(() => google.calls('POST', '/gmail/v1/users/me/watch').length > 0);
      const historyId = google.addMail({ id: 'run-1', subject: 'via run', text: 'x' });
      const response = await fetch(`${url}?token=${PUSH_TOKEN}`, { method: 'POST', body: JSON.stringify(pushEnvelope(ACCOUNT, historyId)) });
      expect(response.status).toBe(204);
      const posted = await eventually(() => hook.requests[0]);
      expect(posted.headers.authorization).toBe(`Bearer ${HOOK_TOKEN}`);
      expect(posted.json.messages[0]).toMatchObject({ id: 'run-1', subject: 'via run' });
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    expect(output).not.toContain(CLIENT_SECRET);
  });
});

describe('the gmail watcher on two processes sharing one store', () => {
  it('one watches the account; when it stops, the other takes over', async () => {
    const google = await FakeGoogle.start();
    const hook = await startFakeServer(() => ({ status: 202, body: { ok: true, runId: 'r' } }));
    const file = path.join(tempDir(), 'shared.db');
    const gmail = {
      account: ACCOUNT,
      topic: 'projects/proj/topics/gog-gmail-watch',
      pushToken: PUSH_TOKEN,
      hookUrl: `${hook.url}/hooks/gmail`,
      leaseSeconds: 1,
      serve: { bind: '127.0.0.1', port: 0, path: '/gmail-pubsub' },
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN },
      endpoints: google.endpoints(),
    };
    const config = baseConfig({ storage: { sqlite: file }, hooks: { presets: ['gmail'], gmail } });
    const first = await startHerald(config);
    const second = await startHerald(config);
    try {
      await eventually(() => google.calls('POST', '/gmail/v1/users/me/watch').length === 1);
      // whichever holds it: stopping it hands the account to the other, which watches anew
      const watcher = (h: typeof first) => h.gateway.instances.services.find((s) => s.name === 'gmail-watcher') as unknown as { holder: boolean };
      const [holding, other] = watcher(first).holder ? [first, second] : [second, first];
      expect(watcher(other).holder).toBe(false);
      await holding.stop();
      await eventually(() => watcher(other).holder, 10_000);
      await eventually(() => google.calls('POST', '/gmail/v1/users/me/watch').length === 2, 10_000);
    } finally {
      await first.stop();
      await second.stop();
      await hook.close();
      await google.server.close();
    }
  });
});
