import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { ALERTS_CHAT, GONE_CHAT, THROTTLED_CHAT, alertTexts, config, platforms as startPlatforms, type Platforms } from './alert-platforms.js';
import { CLIENT_ID, CLIENT_SECRET, FakeGoogle, REFRESH_TOKEN } from '../plugins/gmail/fake-google.js';
import { pausedRun, toolCall } from '../http/admin/paused-runs.js';

/**
 * Each alert condition raised and resolved on a real herald, its notices arriving at a Telegram
 * fake (the alerts chat) and at the signed webhook channel's receiver, both over real sockets.
 */
let herald: TestApp | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function fake(handler: Parameters<typeof startFakeServer>[0]) {
  const server = await startFakeServer(handler);
  fakes.push(server);
  return server;
}

async function admin(path: string, init: RequestInit = {}): Promise<any> {
  const res = await herald!.request(`/admin${path}`, { ...init, headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, ...init.headers } });
  expect(res.status, path).toBeLessThan(300);
  return res.json();
}

async function hook(path: string, body: Record<string, unknown>): Promise<string | undefined> {
  const res = await herald!.request(`/hooks/${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
  return ((await res.json()) as { runId?: string }).runId;
}

const settledRun = (runId: string) => eventually(async () => {
  const run = await admin(`/runs/${runId}`);
  return !['queued', 'running'].includes(run.status) && run;
});

/** waits for a notice in the alerts chat and at the webhook receiver starting with `prefix` */
async function notice(p: Platforms, prefix: string, count = 1): Promise<string> {
  const texts = await eventually((): string[] | undefined => {
    const found = alertTexts(p).filter((t) => t.startsWith(prefix));
    return found.length >= count ? found : undefined;
  });
  await eventually(() => p.webhook.requests.filter((r) => JSON.stringify(r.json).includes(prefix)).length >= count);
  return texts.at(-1)!;
}

describe('alerts added by a reload', () => {
  it('fire without a restart; a reload naming a channel not configured, or a restart-only key, is refused naming it', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, {}));
    const write = (overrides: Record<string, unknown>) => fs.writeFileSync(herald!.configFile, JSON.stringify(config(p, overrides)));

    write({ alerts: { targets: [{ channel: 'slack', to: '#ops' }], rules: [{ on: 'runs.failing', mapping: 'github', count: 2 }] } });
    const refused = await herald.gateway.reload('test');
    expect(refused.ok).toBe(false);
    expect(refused.faults).toEqual([expect.stringMatching(/^alerts\.targets\[0\]\.channel: .*slack/)]);

    write({ alerts: { rules: [{ on: 'runs.failing', mapping: 'github', count: 2 }] }, gateway: { port: 1 } });
    const result = await herald.gateway.reload('test');
    expect(result).toMatchObject({ ok: true, restartRequired: ['gateway.port'] });
    expect(result.changed).toContain('alerts.rules');
    for (const note of ['FAIL one', 'FAIL two', 'FAIL three']) await settledRun((await hook('github', { note }))!);
    expect(await notice(p, 'herald alert: runs.failing')).toContain('mapping github: 2 runs in a row failed');
  });

  it('a ${ENV} fault at reload says the variable must be in the server\'s environment', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, {}));
    fs.writeFileSync(herald.configFile, JSON.stringify(config(p, { channels: { webhook: { url: '${HERALD_TEST_UNSET_URL}' } } })));
    const result = await herald.gateway.reload('test');
    expect(result.ok).toBe(false);
    expect(result.faults).toEqual([
      expect.stringMatching(/environment variable HERALD_TEST_UNSET_URL is not set \(a reload reads the environment herald serve started with, not your shell's: set the variable where the server runs and restart it\)$/),
    ]);
  });
});

describe('alerts', () => {
  it('runs.failing: raised after N failed runs in a row, resolved by a success, quiet within the cooldown', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, { alerts: { rules: [{ on: 'runs.failing', mapping: 'github', count: 2 }] } }));
    await settledRun((await hook('github', { note: 'FAIL one' }))!);
    expect(alertTexts(p)).toEqual([]);
    await settledRun((await hook('github', { note: 'FAIL two' }))!);
    expect(await notice(p, 'herald alert: runs.failing')).toContain('mapping github: 2 runs in a row failed');
    // the signed generic webhook carries the same notice (Standard Webhooks headers)
    const sent = p.webhook.requests.find((r) => JSON.stringify(r.json).includes('herald alert: runs.failing'))!;
    expect(sent.headers['webhook-signature']).toMatch(/^v1,/);

    await settledRun((await hook('github', { note: 'fine' }))!);
    expect(await notice(p, 'herald resolved: runs.failing')).toContain('(github) cleared after');

    // failing again within the cooldown (30m by default): stored, not sent
    await settledRun((await hook('github', { note: 'FAIL three' }))!);
    await settledRun((await hook('github', { note: 'FAIL four' }))!);
    const alerts = await eventually(async () => {
      const list = await admin('/alerts?condition=runs.failing');
      return list.data.length === 2 && list.data;
    });
    expect(alerts.map((a: any) => [a.status, a.notified])).toEqual([['open', false], ['resolved', true]]);
    await settledRun((await hook('github', { note: 'fine again' }))!);
    await eventually(async () => (await admin('/alerts?status=open&condition=runs.failing')).data.length === 0);
    expect(alertTexts(p).filter((t) => t.includes('runs.failing'))).toHaveLength(2);

    const metrics = await (await herald.request(`/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).toContain('herald_alerts_total{condition="runs.failing",event="raised"} 1');
    expect(metrics).toContain('herald_alerts_total{condition="runs.failing",event="suppressed"} 1');
    expect(metrics).toContain('herald_alerts_total{condition="runs.failing",event="resolved"} 2');
  });

  it("budget.exceeded: an agent's spent budget raises it, naming the budget and its reset; its next run fails at once", async () => {
    const p = await startPlatforms(fake);
    // each answer of the fake spends 3 + 2 tokens (its documented usage)
    const agents = { defaults: { model: 'fake/test-model' }, list: [{ id: 'main', budget: { tokensPerDay: 5 } }] };
    herald = await testApp(config(p, { agents, alerts: { rules: [{ on: 'budget.exceeded', agent: 'main' }] } }));
    expect((await settledRun((await hook('github', { note: 'first' }))!)).status).toBe('succeeded');
    const reset = new Date(Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000).toISOString();
    const text = await notice(p, 'herald alert: budget.exceeded');
    expect(text).toContain(`Budget exceeded: agent "main" has used 5 of its 5 tokens per day (agents.list[id=main].budget.tokensPerDay); it resets at ${reset}.`);
    const failed = await settledRun((await hook('github', { note: 'second' }))!);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('Budget exceeded: agent "main"') });
    expect((await admin('/alerts?condition=budget.exceeded')).data.map((a: any) => [a.status, a.subject])).toEqual([['open', 'agent main']]);
  });

  it('delivery.failed: a reply refused for good raises it; abandoning the delivery resolves it', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, { alerts: { rules: [{ on: 'delivery.failed' }] } }));
    const runId = await hook('agent', { message: 'report', channel: 'telegram', to: GONE_CHAT, wakeMode: 'next-heartbeat' });
    const text = await notice(p, 'herald alert: delivery.failed');
    expect(text).toContain(`to telegram ${GONE_CHAT} failed for good: `);
    expect(text).toContain('chat not found');
    expect(text).toContain(`run ${runId}`);
    const [delivery] = (await admin(`/deliveries?run=${runId}`)).data;
    await admin(`/deliveries/${delivery.id}/abandon`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await notice(p, 'herald resolved: delivery.failed');
    // the notices themselves never became the main session's route for `last`
    expect((await admin('/deliveries?status=delivered')).data.every((d: any) => d.kind === 'alert')).toBe(true);
  });

  it("source.silent: a mapping's expectEvery raises it when its sender goes quiet; its next request resolves it", async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, { hooks: { mappings: [{ id: 'stripe', match: { path: 'stripe' }, action: 'wake', textTemplate: 'stripe {{ type }}', expectEvery: '500ms' }] } }));
    expect(await notice(p, 'herald alert: source.silent')).toContain('mapping stripe has received no request since alerts began watching (expected at least every 500ms)');
    await hook('stripe', { type: 'invoice.paid' });
    await notice(p, 'herald resolved: source.silent');
    const [alert] = (await admin('/alerts?condition=source.silent')).data;
    expect(alert).toMatchObject({ subject: 'stripe', status: 'resolved', notified: true });
  });

  it('queue.stale and outbox.stale: raised while runs wait and a delivery is throttled, resolved when they are through', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(
      config(p, {
        agents: { defaults: { model: 'fake/test-model', maxConcurrent: 1 } },
        alerts: { rules: [{ on: 'queue.stale', olderThan: '300ms' }, { on: 'outbox.stale', olderThan: '300ms' }] },
      }),
    );
    const held = await Promise.all(Array.from({ length: 8 }, (_, i) => hook('agent', { message: `HOLD ${i}`, deliver: false, wakeMode: 'next-heartbeat' })));
    expect(await notice(p, 'herald alert: queue.stale')).toContain('an agent run has been queued for more than 300ms');
    p.release();
    const release = setInterval(p.release, 20);
    try {
      for (const runId of held) await settledRun(runId!);
    } finally {
      clearInterval(release);
    }
    await notice(p, 'herald resolved: queue.stale');

    await hook('agent', { message: 'throttled', channel: 'telegram', to: THROTTLED_CHAT, wakeMode: 'next-heartbeat' });
    expect(await notice(p, 'herald alert: outbox.stale')).toContain('a delivery has been pending in the outbox for more than 300ms');
    p.throttle.on = false;
    await notice(p, 'herald resolved: outbox.stale');
  });

  it('approvals.waiting: a call waiting for a person past olderThan raises it (the Overview and its stream count it); deciding it resolves it', async () => {
    const p = await startPlatforms(fake);
    herald = await testApp(config(p, { alerts: { rules: [{ on: 'approvals.waiting', olderThan: '300ms' }] } }));
    // a decision queues the run again: it stays queued, so only the approval is watched
    await herald.gateway.runs.stop(0);
    expect((await admin('/overview')).approvals).toEqual({ waiting: 0, capped: false, oldestAt: null });
    const { run, calls } = await pausedRun(herald.gateway, (runId) => [toolCall(runId)], { name: 'GitHub acme/api#42' });
    expect(await notice(p, 'herald alert: approvals.waiting')).toContain(
      `a tool call has waited for a person for more than 300ms; the oldest, github__create_issue of run GitHub acme/api#42 (${run.id}), since ${new Date(calls[0]!.createdAt).toISOString()}`,
    );
    expect((await admin('/overview')).approvals).toEqual({ waiting: 1, capped: false, oldestAt: new Date(calls[0]!.createdAt).toISOString() });
    // the live stream's first overview says the same
    const stream = await herald.request('/admin/stream', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(JSON.parse(/^data: (.*)$/m.exec(text)![1]!).approvals).toMatchObject({ waiting: 1 });

    await admin(`/approvals/${calls[0]!.id}/approve`, { method: 'POST' });
    await notice(p, 'herald resolved: approvals.waiting');
    expect((await admin('/overview')).approvals.waiting).toBe(0);
  });

  it('refuses to start with a target on a channel that is not configured, naming the key', async () => {
    const p = await startPlatforms(fake);
    const bad = config(p, { alerts: { targets: [{ channel: 'slack', to: '#ops' }], rules: [{ on: 'delivery.failed' }] } });
    await expect(testApp(bad)).rejects.toThrow('alerts.targets[0].channel: slack is not configured (add channels.slack)');
  });

  it('watcher.unhealthy: the Gmail watcher whose token refresh is refused raises it; a renewed watch resolves it', async () => {
    const p = await startPlatforms(fake);
    const google = await FakeGoogle.start();
    fakes.push(google.server);
    // https://developers.google.com/identity/protocols/oauth2/web-server#offline: a revoked refresh token answers 400 invalid_grant
    google.failures.set('/token', { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } });
    herald = await testApp(
      config(p, {
        hooks: {
          presets: ['gmail'],
          gmail: {
            account: 'me@example.com',
            topic: 'projects/proj/topics/gog-gmail-watch',
            pushToken: 'push-token-0123456789abcdef',
            hookUrl: 'http://127.0.0.1:9/hooks/gmail',
            serve: { bind: '127.0.0.1', port: 0, path: '/gmail-pubsub' },
            oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN },
            endpoints: google.endpoints(),
          },
        },
        alerts: { rules: [{ on: 'watcher.unhealthy' }] },
      }),
    );
    const text = await notice(p, 'herald alert: watcher.unhealthy');
    expect(text).toContain('the Gmail watch of me@example.com cannot be renewed');
    expect(text).toContain('invalid_grant');
    expect(text).not.toContain(REFRESH_TOKEN);
    google.failures.delete('/token');
    await eventually(() => google.calls('POST', '/gmail/v1/users/me/watch').length > 0);
    await notice(p, 'herald resolved: watcher.unhealthy');
  });
});
