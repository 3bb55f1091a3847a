import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeResponse, type FakeServer, type RecordedRequest } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { channelCases } from '../plugins/channel-cases.js';
import { fakeModel, startFakeOpenAI } from '../models/fake-openai.js';

/** Delivery policy end to end: retry schedules, permanent errors, fallback targets and bulk operations against the channel fakes. */
const caseOf = (id: string) => channelCases.find((c) => c.plugin.id === id)!;
const fast = { delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 5 } };

let herald: TestApp | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

/** one fake platform answering each channel's sends as `answer` says (the Teams token endpoint as documented) */
async function platform(answer: (channel: string, request: RecordedRequest) => FakeResponse | Promise<FakeResponse>) {
  const server = await startFakeServer((r) => {
    const c = channelCases.find((k) => k.isSend(r));
    return c ? answer(c.plugin.id, r) : caseOf('msteams').other!(r);
  });
  fakes.push(server);
  return server;
}

async function admin<T = any>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await herald!.request(`/admin${path}`, {
    ...init,
    headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function hook(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await herald!.request(`/hooks/${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ wakeMode: 'next-heartbeat', ...body }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

/** the run's deliveries once none is pending or sending any more */
function settledDeliveries(runId: string, count = 1): Promise<any[]> {
  return eventually(async () => {
    const { body } = await admin<{ data: any[] }>(`/deliveries?run=${runId}`);
    return body.data.length >= count && body.data.every((d) => ['delivered', 'failed', 'abandoned'].includes(d.status)) && body.data.reverse();
  }) as Promise<any[]>;
}

const sendsTo = (server: FakeServer, channel: string) => server.requests.filter((r) => caseOf(channel).isSend(r));
const telegramRefusal = (description: string, code = 400): FakeResponse => ({ status: code, body: { ok: false, error_code: code, description } });

describe('permanent errors', () => {
  it('end the delivery at once as failed with the platform\'s reason, on every channel', async () => {
    const refusals: Record<string, FakeResponse> = Object.fromEntries(channelCases.map((c) => [c.plugin.id, c.documented.find((d) => d.kind === 'permanent')!.response]));
    const server = await platform((channel) => refusals[channel]!);
    herald = await testApp({ ...fast, channels: Object.fromEntries(channelCases.map((c) => [c.plugin.id, c.config(server.url)])) });
    for (const c of channelCases) {
      const runId = await hook('agent', { message: `tell ${c.plugin.id}`, channel: c.plugin.id, to: c.to });
      const [delivery] = await settledDeliveries(runId);
      expect(delivery, c.plugin.id).toMatchObject({ status: 'failed', attempts: 1 });
      expect(delivery.lastError, c.plugin.id).toContain(c.documented.find((d) => d.kind === 'permanent')!.reason);
      expect(sendsTo(server, c.plugin.id), c.plugin.id).toHaveLength(1);
    }
  });
});

describe('retry schedules', () => {
  it('channels.<id>.retry sets the attempts; a mapping\'s retry wins over it', async () => {
    const server = await platform(() => ({ status: 503, body: { ok: false, error_code: 503, description: 'Service Unavailable' } }));
    herald = await testApp({
      ...fast,
      channels: { telegram: { ...caseOf('telegram').config(server.url), retry: { attempts: 3, backoff: 'linear', initialMs: 5, maxMs: 20 } } },
      hooks: { mappings: [{ id: 'patient', match: { path: 'patient' }, messageTemplate: 'hi', channel: 'telegram', to: '555', retry: { attempts: 2 } }] },
    });
    const [byChannel] = await settledDeliveries(await hook('agent', { message: 'hello', channel: 'telegram', to: '555' }));
    expect(byChannel).toMatchObject({ status: 'failed', attempts: 3 });
    expect(byChannel.lastError).toBe('telegram 503: Service Unavailable (gave up after 3 attempts)');
    server.requests.length = 0;
    const [byMapping] = await settledDeliveries(await hook('patient', {}));
    expect(byMapping).toMatchObject({ status: 'failed', attempts: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('maxAgeMs gives up before the attempts run out', async () => {
    const server = await platform(() => ({ status: 500, body: { message: 'down' } }));
    herald = await testApp({ ...fast, channels: { discord: { ...caseOf('discord').config(server.url), retry: { attempts: 1000, initialMs: 40, maxMs: 40, maxAgeMs: 100 } } } });
    const [delivery] = await settledDeliveries(await hook('agent', { message: 'hello', channel: 'discord', to: '42' }));
    expect(delivery.status).toBe('failed');
    expect(delivery.lastError).toContain('retry.maxAgeMs 100 reached');
    expect(delivery.attempts).toBeLessThan(1000);
  });

  it('a transient error with the platform\'s retry hint is retried, then delivered', async () => {
    let refused = 0;
    const server = await platform(() => (refused++ < 1 ? { status: 200, body: { ok: false, error: 'service_unavailable' } } : caseOf('slack').ok));
    herald = await testApp({ ...fast, channels: { slack: caseOf('slack').config(server.url) } });
    const [delivery] = await settledDeliveries(await hook('agent', { message: 'hello', channel: 'slack', to: 'C1' }));
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});

describe('fallback targets', () => {
  it('a permanent failure hands the reply to the next target, a delivery of its own linked to the first', async () => {
    const server = await platform((channel) => (channel === 'telegram' ? telegramRefusal('Forbidden: bot was blocked by the user', 403) : channel === 'discord' ? { status: 404, body: { message: 'Unknown Channel', code: 10003 } } : caseOf(channel).ok));
    herald = await testApp({
      ...fast,
      channels: { telegram: caseOf('telegram').config(server.url), discord: caseOf('discord').config(server.url), slack: caseOf('slack').config(server.url) },
      hooks: {
        mappings: [
          { id: 'deploys', match: { path: 'deploys' }, messageTemplate: 'deploy {{ service }}', channel: 'telegram', to: '555', fallback: [{ channel: 'discord', to: '42' }, { channel: 'slack', to: 'C0PS' }] },
        ],
      },
    });
    const runId = await hook('deploys', { service: 'api' });
    const [first, second, third] = await settledDeliveries(runId, 3);
    expect(first).toMatchObject({ channel: 'telegram', to: '555', status: 'failed', attempts: 1, fallbackOf: null });
    expect(first.lastError).toContain('Forbidden: bot was blocked by the user');
    expect(second).toMatchObject({ channel: 'discord', to: '42', status: 'failed', attempts: 1, fallbackOf: first.id });
    expect(third).toMatchObject({ channel: 'slack', to: 'C0PS', status: 'delivered', fallbackOf: second.id });
    const slackSends = sendsTo(server, 'slack');
    expect(slackSends).toHaveLength(1);
    expect(slackSends[0]!.json.channel).toBe('C0PS');

    const detail = await admin(`/deliveries/${second.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.chain.map((d: { id: string }) => d.id)).toEqual([first.id, second.id, third.id]);
    const run = await admin(`/runs/${runId}`);
    expect(run.body.delivery).toMatchObject({ id: third.id, status: 'delivered', fallbackOf: second.id });
    const events = await admin<{ data: { text: string }[] }>('/events?session=main');
    expect(events.body.data.map((e) => e.text)).toContain(`Delivery failed: telegram to 555: telegram 403: Forbidden: bot was blocked by the user; falling back to discord to 42`);
  });

  it('an agent\'s fallback applies to its replies when the mapping has none', async () => {
    const server = await platform((channel) => (channel === 'telegram' ? telegramRefusal('Bad Request: chat not found') : caseOf(channel).ok));
    herald = await testApp({
      ...fast,
      agents: { list: [{ id: 'main', fallback: [{ channel: 'webhook' }] }] },
      channels: { telegram: caseOf('telegram').config(server.url), webhook: caseOf('webhook').config(server.url) },
    });
    const [first, second] = await settledDeliveries(await hook('agent', { message: 'hello', channel: 'telegram', to: '555' }), 2);
    expect(first).toMatchObject({ status: 'failed', channel: 'telegram' });
    expect(second).toMatchObject({ status: 'delivered', channel: 'webhook', fallbackOf: first.id });
  });
});

describe('once to a fallback target', () => {
  it('a heartbeat woken by the run, answering with the run\'s own words, sends them to the fallback target no second time', async () => {
    // a model that says the same thing whatever it is asked: the run's reply and the heartbeat's are one text
    const model = await startFakeOpenAI('Deploy of api done.');
    fakes.push(model);
    const server = await platform((channel, r) => (r.json?.chat_id === '555' ? telegramRefusal('Bad Request: chat not found') : caseOf(channel).ok));
    herald = await testApp({
      ...fast,
      ...fakeModel(model),
      agents: { defaults: { model: 'fake/gpt-test' }, list: [{ id: 'main', fallback: [{ channel: 'telegram', to: '777' }] }] },
      channels: { telegram: caseOf('telegram').config(server.url) },
    });
    // wakeMode now (the default): the heartbeat reads the run's summary and the failed delivery's event
    const res = await herald.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'deploy api', channel: 'telegram', to: '555' }) });
    expect(res.status).toBe(202);
    const runId = ((await res.json()) as { runId: string }).runId;
    const [first, fallback] = await settledDeliveries(runId, 2);
    expect(first).toMatchObject({ status: 'failed', to: '555' });
    expect(fallback).toMatchObject({ status: 'delivered', to: '777', fallbackOf: first.id });
    // the heartbeat has answered: its reply either queued as a delivery of its own or held back
    await eventually(async () => {
      const { body } = await admin<{ data: { kind: string; status: string }[] }>('/deliveries');
      const heartbeat = body.data.find((d) => d.kind === 'heartbeat');
      return heartbeat ? ['delivered', 'failed'].includes(heartbeat.status) : herald!.logs.some((l) => String(l.msg).startsWith('heartbeat reply repeats'));
    });
    expect(sendsTo(server, 'telegram').filter((r) => r.json?.chat_id === '777').map((r) => r.json.text)).toEqual(['Deploy of api done.']);
  });
});

describe('once to a fallback target still sending', () => {
  it("a heartbeat reply with the run's words, queued while the run's fallback is being sent to that target, is not sent a second time", { timeout: 60_000 }, async () => {
    // the warm-up run's reply differs; the deploy run and the heartbeat it wakes say the same words
    const model = await startFakeOpenAI((messages) => (messages.at(-1)?.content.includes('warm up') ? 'Warm-up noted.' : 'Deploy of api done.'));
    fakes.push(model);
    // the fallback's send of the deploy reply is held by the platform until the heartbeat has answered: the race, forced
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    const server = await platform(async (channel, r) => {
      if (r.json?.chat_id === '555') return telegramRefusal('Bad Request: chat not found');
      if (r.json?.chat_id === '777' && r.json?.text === 'Deploy of api done.' && holding) {
        holding = false;
        await held;
      }
      return caseOf(channel).ok;
    });
    herald = await testApp({
      ...fast,
      ...fakeModel(model),
      agents: { defaults: { model: 'fake/gpt-test' }, list: [{ id: 'main', fallback: [{ channel: 'telegram', to: '777' }] }] },
      channels: { telegram: caseOf('telegram').config(server.url) },
    });
    // 777 is the last route: a heartbeat's reply goes there
    await settledDeliveries(await hook('agent', { message: 'warm up', channel: 'telegram', to: '777' }));
    const res = await herald.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'deploy api', channel: 'telegram', to: '555' }) });
    expect(res.status).toBe(202);
    const runId = ((await res.json()) as { runId: string }).runId;
    // the heartbeat has answered while the fallback is still sending: its reply queued as a delivery of its own, or held back
    await eventually(async () => {
      const { body } = await admin<{ data: { kind: string }[] }>('/deliveries');
      return body.data.some((d) => d.kind === 'heartbeat') || herald!.logs.some((l) => String(l.msg).startsWith('heartbeat reply repeats'));
    });
    release();
    const [first, fallback] = await settledDeliveries(runId, 2);
    expect(first).toMatchObject({ status: 'failed', to: '555' });
    expect(fallback).toMatchObject({ status: 'delivered', to: '777', fallbackOf: first.id });
    await eventually(async () => {
      const { body } = await admin<{ data: { kind: string; status: string }[] }>('/deliveries');
      return body.data.every((d) => ['delivered', 'failed', 'abandoned'].includes(d.status));
    });
    expect(sendsTo(server, 'telegram').filter((r) => r.json?.chat_id === '777').map((r) => r.json.text)).toEqual(['Warm-up noted.', 'Deploy of api done.']);
  });
});

describe('bulk retry and abandon', () => {
  it('counts the failed deliveries matching a filter, then retries or abandons exactly those', async () => {
    let down = true;
    const server = await platform((channel) => (down ? (channel === 'telegram' ? telegramRefusal('Bad Request: chat not found') : { status: 200, body: { ok: false, error: 'channel_not_found' } }) : caseOf(channel).ok));
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(server.url), slack: caseOf('slack').config(server.url) } });
    const telegramRuns = [await hook('agent', { message: 'one', channel: 'telegram', to: '1' }), await hook('agent', { message: 'two', channel: 'telegram', to: '2' })];
    const slackRun = await hook('agent', { message: 'three', channel: 'slack', to: 'C1' });
    for (const runId of [...telegramRuns, slackRun]) expect((await settledDeliveries(runId))[0].status).toBe('failed');

    const post = (action: string, body: Record<string, unknown>) => admin(`/deliveries/${action}`, { method: 'POST', body: JSON.stringify(body) });
    expect((await post('retry', { channel: 'telegram', error: 'CHAT NOT FOUND', dryRun: true })).body).toEqual({ count: 2, dryRun: true });
    expect((await post('retry', { error: 'nothing like this', dryRun: true })).body).toEqual({ count: 0, dryRun: true });
    expect((await post('retry', { until: '2000-01-01T00:00:00Z', dryRun: true })).body.count).toBe(0);
    expect((await post('abandon', { dryRun: true })).body).toEqual({ count: 3, dryRun: true });
    // the dry runs changed nothing
    expect(sendsTo(server, 'telegram')).toHaveLength(2);

    down = false;
    expect((await post('retry', { channel: 'telegram', error: 'chat not found' })).body).toEqual({ count: 2, dryRun: false });
    for (const runId of telegramRuns) expect((await settledDeliveries(runId))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect((await post('abandon', { channel: 'slack' })).body).toEqual({ count: 1, dryRun: false });
    expect((await settledDeliveries(slackRun))[0].status).toBe('abandoned');
    expect(sendsTo(server, 'slack')).toHaveLength(1);

    const bad = await post('retry', { since: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('since');
    const noAuth = await herald.request(`/admin/deliveries/retry`, { method: 'POST', body: '{}' });
    expect(noAuth.status).toBe(401);
  });
});
