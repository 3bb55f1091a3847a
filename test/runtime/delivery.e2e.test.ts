import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer, type RecordedRequest } from '../helpers/fake-server.js';
import { GATEWAY_TOKEN, baseConfig, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { channelCases } from '../plugins/channel-cases.js';

const fast = { delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 5 } };
const caseOf = (id: string) => channelCases.find((c) => c.plugin.id === id)!;

let herald: TestApp | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

async function fake(...args: Parameters<typeof startFakeServer>) {
  const server = await startFakeServer(...args);
  fakes.push(server);
  return server;
}

async function admin<T = any>(path: string): Promise<T> {
  const res = await herald!.request(`/admin${path}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** an agent run; no immediate heartbeat, whose own reply would go to the last route too */
async function agent(body: Record<string, unknown>): Promise<string> {
  const res = await herald!.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ wakeMode: 'next-heartbeat', ...body }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

/** waits for the run's delivery to reach a final state and returns the run */
function settled(runId: string) {
  return eventually(async () => {
    const run = await admin(`/runs/${runId}`);
    return ['delivered', 'failed', 'skipped', 'not_requested'].includes(run.delivery?.status) && run;
  });
}

/** one fake answering every platform's send (and the Teams token endpoint) */
async function platformFake() {
  return fake((r: RecordedRequest) => {
    const c = channelCases.find((k) => k.isSend(r));
    if (c) return c.ok;
    return caseOf('msteams').other!(r);
  });
}

function allChannels(url: string) {
  return Object.fromEntries(channelCases.map((c) => [c.plugin.id, c.config(url)]));
}

describe('delivery to every channel', () => {
  it('sends a run\'s reply through each channel\'s real API, aliases included', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: allChannels(platform.url) });
    const names: Record<string, string> = { imessage: 'imsg', msteams: 'teams' };
    for (const c of channelCases) {
      const runId = await agent({ message: `Tell ${c.plugin.id} about the deploy`, name: 'Deploy', channel: names[c.plugin.id] ?? c.plugin.id, to: c.to });
      const run = await settled(runId);
      expect(run.delivery).toMatchObject({ status: 'delivered', channel: c.plugin.id, to: c.to, attempts: 1, runId });
      const sent = platform.requests.filter((r) => c.isSend(r));
      expect(sent).toHaveLength(1);
      c.expectSend(sent[0]!, run.reply, c.to);
    }
    const list = await admin('/deliveries?status=delivered');
    expect(list.data).toHaveLength(channelCases.length);
    const runs = await Promise.all(list.data.map((d: { runId: string }) => admin(`/runs/${d.runId}`)));
    const raw = herald.rawLogs() + JSON.stringify(list) + JSON.stringify(runs);
    for (const c of channelCases) for (const secret of c.secrets) expect(raw).not.toContain(secret);
  });
});

describe('the target', () => {
  it('`last` goes to the last route, and a missing `to` is the last recipient', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: allChannels(platform.url) });
    await settled(await agent({ message: 'first', channel: 'telegram', to: '555' }));
    const run = await settled(await agent({ message: 'second' }));
    expect(run.delivery).toMatchObject({ status: 'delivered', channel: 'telegram', to: '555', requested: { channel: 'last', to: null } });
    const sameChannel = await settled(await agent({ message: 'third', channel: 'telegram' }));
    expect(sameChannel.delivery).toMatchObject({ status: 'delivered', channel: 'telegram', to: '555' });
    expect(platform.requests.filter((r) => r.path.endsWith('/sendMessage')).map((r) => r.json.chat_id)).toEqual(['555', '555', '555']);
  });

  it('refuses a channel no plugin provides, naming the allowed ones', async () => {
    herald = await testApp(fast);
    const res = await herald.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'hi', channel: 'fax' }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { ok: boolean; error: string };
    expect(body.ok).toBe(false);
    expect(body.error).toContain('channel');
    expect(body.error).toContain('imsg');
  });

  it('`last` with no earlier delivery falls back to whatsapp', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: allChannels(platform.url) });
    const run = await settled(await agent({ message: 'hello', to: '4915112345678' }));
    expect(run.delivery).toMatchObject({ status: 'delivered', channel: 'whatsapp', to: '4915112345678' });
  });

  it('an unresolvable target fails the delivery and tells the main session', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    const noRecipient = await settled(await agent({ message: 'hello', channel: 'telegram', name: 'NoTo' }));
    expect(noRecipient.delivery).toMatchObject({ status: 'failed', channel: 'telegram', attempts: 0 });
    expect(noRecipient.delivery.lastError).toContain('no recipient');
    // `last` with no earlier delivery falls back to whatsapp, which is not configured here
    const unconfigured = await settled(await agent({ message: 'hello', to: '4915112345678', name: 'Unconfigured' }));
    expect(unconfigured.delivery).toMatchObject({ status: 'failed', channel: 'whatsapp' });
    expect(unconfigured.delivery.lastError).toContain('channel whatsapp is not configured');
    const events = await admin('/events?session=main');
    expect(events.data.map((e: { text: string }) => e.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Delivery failed: no recipient on telegram/), expect.stringMatching(/^Delivery failed: channel whatsapp is not configured/)]),
    );
    expect(platform.requests).toHaveLength(0);
  });
});

describe('heartbeat acknowledgements', () => {
  function openaiAnswering(text: string) {
    return fake((r) =>
      r.path === '/v1/chat/completions'
        ? {
            body: {
              id: 'chatcmpl-1',
              object: 'chat.completion',
              created: 1,
              model: 'm',
              choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
            },
          }
        : { status: 404 },
    );
  }

  it('a run whose reply is only HEARTBEAT_OK is not delivered, but its summary is posted', async () => {
    const platform = await platformFake();
    const model = await openaiAnswering('HEARTBEAT_OK');
    herald = await testApp({
      ...fast,
      channels: allChannels(platform.url),
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } },
      agents: { defaults: { model: 'fake/m' } },
    });
    const run = await settled(await agent({ message: 'anything new?', channel: 'telegram', to: '555', name: 'Check', wakeMode: 'next-heartbeat' }));
    expect(run.reply).toBe('HEARTBEAT_OK');
    expect(run.delivery).toMatchObject({ status: 'skipped' });
    expect(platform.requests).toHaveLength(0);
    expect((await admin('/deliveries')).data).toHaveLength(0);
    const events = await admin('/events?session=main');
    expect(events.data.map((e: { text: string; untrusted: boolean }) => ({ text: e.text, untrusted: e.untrusted }))).toContainEqual({ text: 'Hook Check: HEARTBEAT_OK', untrusted: true });
  });

  it('a heartbeat reply that is more than an ack goes to the last route', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: allChannels(platform.url) });
    await settled(await agent({ message: 'set the route', channel: 'discord', to: '42', wakeMode: 'next-heartbeat' }));
    const before = platform.requests.length;
    const wake = await herald.request(`/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'The build is broken' }) });
    expect(wake.status).toBe(200);
    const heartbeatDelivery = await eventually(async () => {
      const list = await admin('/deliveries?status=delivered');
      return list.data.find((d: { kind: string }) => d.kind === 'heartbeat');
    });
    expect(heartbeatDelivery).toMatchObject({ channel: 'discord', to: '42', runId: null });
    const sent = platform.requests.slice(before).filter((r) => r.path === '/channels/42/messages');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json.content).not.toContain('HEARTBEAT_OK');
  });
});

describe('undeliverable heartbeat replies', () => {
  it('are recorded as failed but not fed back to the main session (no loop)', async () => {
    const platform = await platformFake();
    // a channel is configured, so the interface's rules apply: `last` falls back to whatsapp, which is not
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    await herald.request(`/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'Disk almost full' }) });
    const failed = await eventually(async () => (await admin('/deliveries?status=failed')).data[0]);
    expect(failed).toMatchObject({ kind: 'heartbeat', channel: 'whatsapp', runId: null, attempts: 0 });
    await herald.gateway.heartbeat.idle();
    const events = await admin('/events?session=main');
    expect(events.data.map((e: { text: string }) => e.text)).toEqual(['Disk almost full']);
  });
});

describe('retries', () => {
  it('retries after a 500 and a 429 (honouring Retry-After) and delivers once', async () => {
    const answers = [{ status: 500, body: { ok: false, description: 'Internal Server Error' } }, { status: 429, headers: { 'retry-after': '0' }, body: { ok: false, description: 'Too Many Requests' } }];
    let accepted = 0;
    const platform = await fake(() => {
      const next = answers.shift();
      if (next) return next;
      accepted++;
      return { body: { ok: true, result: { message_id: 1 } } };
    });
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    const run = await settled(await agent({ message: 'hello', channel: 'telegram', to: '555' }));
    expect(run.delivery).toMatchObject({ status: 'delivered', attempts: 3, lastError: 'telegram 429: Too Many Requests' });
    expect(accepted).toBe(1);
    expect(platform.requests).toHaveLength(3);
  });

  it('a 4xx fails at once with the platform\'s error, posted to the main session', async () => {
    const platform = await fake(() => ({ status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } }));
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    const run = await settled(await agent({ message: 'hello', channel: 'telegram', to: '999' }));
    expect(run.delivery).toMatchObject({ status: 'failed', attempts: 1, lastError: 'telegram 400: Bad Request: chat not found' });
    expect(platform.requests).toHaveLength(1);
    // the failure's event is posted after the delivery's status is written: it comes, not at the same instant
    const failure = 'Delivery failed: telegram to 999: telegram 400: Bad Request: chat not found';
    await eventually(async () => (await admin('/events?session=main')).data.some((e: { text: string }) => e.text === failure));
  });

  it('gives up after maxAttempts retryable failures and says so', async () => {
    const platform = await fake(() => ({ status: 502, body: { message: 'bad gateway' } }));
    herald = await testApp({ ...fast, channels: { discord: caseOf('discord').config(platform.url) } });
    const run = await settled(await agent({ message: 'hello', channel: 'discord', to: '42' }));
    expect(run.delivery).toMatchObject({ status: 'failed', attempts: 5 });
    expect(run.delivery.lastError).toBe('discord 502: bad gateway (gave up after 5 attempts)');
    expect(platform.requests).toHaveLength(5);
  });

  it('a retry of a split message does not resend the parts already delivered', async () => {
    let calls = 0;
    const platform = await fake(() => (++calls === 2 ? { status: 503, body: { message: 'busy' } } : { body: { id: String(calls) } }));
    const longRun = `${'a'.repeat(1500)}\n\n${'b'.repeat(1500)}\n\n${'c'.repeat(1500)}`;
    const model = await fake((r) =>
      r.path === '/v1/chat/completions'
        ? { body: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: longRun }, finish_reason: 'stop' }] } }
        : { status: 404 },
    );
    herald = await testApp({
      ...fast,
      channels: { discord: caseOf('discord').config(platform.url) },
      models: { providers: { fake: { api: 'openai', baseUrl: `${model.url}/v1` } } },
      agents: { defaults: { model: 'fake/m' } },
    });
    const run = await settled(await agent({ message: 'long one', channel: 'discord', to: '42' }));
    expect(run.delivery).toMatchObject({ status: 'delivered', attempts: 2, partsSent: 3 });
    const contents = platform.requests.map((r) => r.json.content[0]);
    expect(contents).toEqual(['a', 'b', 'b', 'c']); // part 2 failed once and was retried; part 1 never twice
  });
});

describe('durability', () => {
  it('a delivery pending across a restart completes, exactly once', async () => {
    let up = false;
    const accepted: string[] = [];
    const platform = await fake((r) => {
      if (!up) return 'destroy';
      accepted.push(r.json.text);
      return { body: { ok: true, channel: 'C1', ts: '1.0' } };
    });
    const config = baseConfig({ delivery: { baseDelayMs: 10, maxDelayMs: 30, maxAttempts: 1000 }, channels: { slack: caseOf('slack').config(platform.url) } });
    herald = await testApp(config);
    const runId = await agent({ message: 'survive this', channel: 'slack', to: 'C1' });
    await eventually(async () => (await admin(`/runs/${runId}`)).delivery?.attempts >= 2);
    herald = await herald.restart();
    const pending = await admin(`/runs/${runId}`);
    expect(['pending', 'sending']).toContain(pending.delivery.status);
    expect(pending.delivery.lastError).toMatch(/^slack: network error/);
    expect(accepted).toEqual([]);
    up = true;
    const run = await settled(runId);
    expect(run.delivery.status).toBe('delivered');
    expect(accepted).toEqual([run.reply]);
    // the next process finds it delivered and sends nothing again (the main session's own
    // heartbeat reply, which also goes to the last route, is a different message)
    herald = await herald.restart();
    await herald.gateway.heartbeat.idle();
    await herald.gateway.runs.idle();
    expect((await admin(`/runs/${runId}`)).delivery.status).toBe('delivered');
    expect(accepted.filter((t) => t === run.reply)).toHaveLength(1);
  });
});

describe('admin', () => {
  it('lists deliveries with status filter and limit, and refuses an unknown status', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: allChannels(platform.url) });
    await settled(await agent({ message: 'one', channel: 'slack', to: 'C1' }));
    await settled(await agent({ message: 'two', channel: 'telegram' }));
    expect((await admin('/deliveries')).data).toHaveLength(2);
    expect((await admin('/deliveries?limit=1')).data).toHaveLength(1);
    const failed = await admin('/deliveries?status=failed');
    expect(failed.data).toHaveLength(1);
    expect(failed.data[0]).toMatchObject({ channel: 'telegram', status: 'failed', to: null });
    expect(Object.keys(failed.data[0]).sort()).toEqual(
      ['id', 'runId', 'kind', 'status', 'channel', 'to', 'attempts', 'partsSent', 'lastError', 'createdAt', 'updatedAt', 'nextAttemptAt', 'deliveredAt', 'fallbackOf', 'retriedAt', 'run'].sort(),
    );
    const bad = await herald.request(`/admin/deliveries?status=lost`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(bad.status).toBe(400);
    const noAuth = await herald.request(`/admin/deliveries`);
    expect(noAuth.status).toBe(401);
  });
});

describe('durability at the edges', () => {
  it('a reply whose run finished just before the process died is queued at the next start, once', async () => {
    let up = false;
    const accepted: string[] = [];
    const platform = await fake((r) => {
      if (!up) return 'destroy';
      accepted.push(r.json.text);
      return { body: { ok: true, result: { message_id: 1 } } };
    });
    const config = baseConfig({ delivery: { baseDelayMs: 10, maxDelayMs: 30, maxAttempts: 1000 }, channels: { telegram: caseOf('telegram').config(platform.url) } });
    herald = await testApp(config);
    const runId = await agent({ message: 'finish me', channel: 'telegram', to: '555' });
    await eventually(async () => (await admin(`/runs/${runId}`)).status === 'succeeded');
    await herald.stop();
    // the state a crash leaves between "run succeeded" and "reply queued": no delivery row
    const db = new Database(path.join(herald.dir, 'data/herald.db'));
    db.prepare('DELETE FROM deliveries WHERE run_id = ?').run(runId);
    db.close();
    up = true;
    herald = await herald.restart();
    const run = await settled(runId);
    expect(run.delivery).toMatchObject({ status: 'delivered', channel: 'telegram', to: '555' });
    expect(accepted).toEqual([run.reply]);
    herald = await herald.restart();
    await herald.gateway.runs.idle();
    expect((await admin('/deliveries')).data.filter((d: { runId: string }) => d.runId === runId)).toHaveLength(1);
    expect(accepted.filter((t) => t === run.reply)).toHaveLength(1);
  });

  it('a send in flight at shutdown is let finish, not cut off and sent again', async () => {
    const platform = await fake(() => ({ delayMs: 300, body: { ok: true, result: { message_id: 1 } } }));
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    const runId = await agent({ message: 'in flight', channel: 'telegram', to: '555' });
    await eventually(() => platform.requests.length === 1);
    herald = await herald.restart();
    const run = await settled(runId);
    expect(run.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    await herald.gateway.runs.idle();
    // (the restarted main session's heartbeat reply may also go to 555: a different text)
    expect(platform.requests.filter((r) => r.json.text === run.reply)).toHaveLength(1);
  });
});

describe('operator retry', () => {
  async function retry(id: string, token = GATEWAY_TOKEN) {
    return herald!.request(`/admin/deliveries/${id}/retry`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  }

  it('puts a failed delivery back in line and delivers it; refuses what is not failed', async () => {
    let down = true;
    const platform = await fake(() => (down ? { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } } : { body: { ok: true, result: { message_id: 7 } } }));
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    const runId = await agent({ message: 'try again later', channel: 'telegram', to: '555' });
    const failed = await settled(runId);
    expect(failed.delivery).toMatchObject({ status: 'failed', attempts: 1 });
    down = false;
    const res = await retry(failed.delivery.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: failed.delivery.id, status: 'pending', attempts: 0 });
    const run = await settled(runId);
    expect(run.delivery).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(platform.requests).toHaveLength(2);

    const again = await retry(failed.delivery.id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { ok: boolean; error: string }).error).toContain('delivered');
    expect((await retry('no-such-delivery')).status).toBe(404);
    expect((await retry(failed.delivery.id, 'wrong-token')).status).toBe(401);
  });

  it('refuses a failed delivery that never had a target', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    const run = await settled(await agent({ message: 'nobody to tell', channel: 'telegram' }));
    expect(run.delivery.status).toBe('failed');
    const res = await retry(run.delivery.id);
    expect(res.status).toBe(409);
    expect(platform.requests).toHaveLength(0);
  });
});

describe('two processes on one database', () => {
  it('never send one delivery twice', async () => {
    let up = false;
    const accepted: string[] = [];
    const platform = await fake((r) => {
      if (!up) return 'destroy';
      accepted.push(r.json.text);
      return { delayMs: 20, body: { ok: true, channel: r.json.channel, ts: '1.0' } };
    });
    const config = baseConfig({ delivery: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 1000, concurrency: 8 }, channels: { slack: caseOf('slack').config(platform.url) } });
    herald = await testApp(config);
    const runIds: string[] = [];
    for (let i = 0; i < 8; i++) runIds.push(await agent({ message: `reply ${i}`, channel: 'slack', to: `C${i}` }));
    await eventually(async () => {
      const runs = await Promise.all(runIds.map((id) => admin(`/runs/${id}`)));
      return runs.every((r) => r.delivery?.status === 'pending' || r.delivery?.status === 'sending');
    });
    const second = await testApp(config, { dir: herald.dir });
    try {
      up = true;
      const runs = await Promise.all(runIds.map((id) => settled(id)));
      for (const run of runs) expect(run.delivery.status).toBe('delivered');
      for (const run of runs) expect(accepted.filter((t) => t === run.reply), run.reply).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});

describe('an explicit channel that is not configured', () => {
  it('is refused at accept time, naming it', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } });
    for (const channel of ['slack', 'teams']) {
      const res = await herald.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'hi', channel, to: 'C1' }) });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { ok: boolean; error: string };
      expect(body.error).toContain(`"${channel}" is not configured`);
    }
    expect((await admin('/deliveries')).data).toHaveLength(0);
  });
});

describe('a fresh install with no channel configured', () => {
  it('records replies as not delivered, with no failure, warning or event', async () => {
    herald = await testApp(fast);
    const runId = await agent({ message: 'hello', name: 'Quiet' });
    const run = await eventually(async () => {
      const r = await admin(`/runs/${runId}`);
      return r.status === 'succeeded' && r;
    });
    expect(run.delivery).toEqual({ status: 'not_delivered', reason: 'no channel configured', requested: { channel: 'last', to: null } });
    // a heartbeat with something to say: not delivered either, and no failure recorded
    await herald.request(`/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'Disk almost full' }) });
    await herald.gateway.heartbeat.idle();
    await herald.gateway.runs.idle();
    expect((await admin('/deliveries')).data).toEqual([]);
    const events = await admin('/events?session=main');
    expect(events.data.map((e: { text: string }) => e.text).filter((t: string) => t.startsWith('Delivery failed'))).toEqual([]);
    expect(herald.logs.filter((l) => Number(l.level) >= 40 && /deliver/i.test(String(l.msg)))).toEqual([]);
    // a channel that is not configured, named explicitly, is still refused
    const res = await herald.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'hi', channel: 'telegram', to: '1' }) });
    expect(res.status).toBe(400);
  });
});

describe('a channel configured after runs ended not delivered', () => {
  it('sends none of their replies at the next start, nor at the one after', async () => {
    herald = await testApp(fast);
    const ran = [await agent({ message: 'one', name: 'Quiet' }), await agent({ message: 'two', name: 'Quiet' })];
    for (const runId of ran) await eventually(async () => (await admin(`/runs/${runId}`)).status === 'succeeded');
    await herald.stop();
    const platform = await fake(() => ({ body: { ok: true, result: { message_id: 1 } } }));
    // the same folder and database, now with a channel
    fs.writeFileSync(herald.configFile, JSON.stringify(baseConfig({ ...fast, channels: { telegram: caseOf('telegram').config(platform.url) } })));
    herald = await herald.restart();
    await herald.gateway.runs.idle();
    herald = await herald.restart();
    await herald.gateway.runs.idle();
    expect((await admin('/deliveries')).data).toEqual([]);
    expect(platform.requests).toEqual([]);
    // a run of this process is delivered as usual
    const runId = await agent({ message: 'three', channel: 'telegram', to: '555' });
    expect((await settled(runId)).delivery).toMatchObject({ status: 'delivered' });
    expect(platform.requests).toHaveLength(1);
  });
});

describe('replies in threads', () => {
  it('threadId from the request reaches each platform\'s own thread field', async () => {
    const platform = await platformFake();
    herald = await testApp({ ...fast, channels: allChannels(platform.url) });
    const threads: Record<string, [string, (r: RecordedRequest) => unknown, unknown]> = {
      slack: ['1700000000.000100', (r) => r.json.thread_ts, '1700000000.000100'],
      telegram: ['42', (r) => r.json.message_thread_id, 42],
      discord: ['1111111111111111111', (r) => r.json.message_reference, { message_id: '1111111111111111111', fail_if_not_exists: false }],
      mattermost: ['rootpost0000000000000000ab', (r) => r.json.root_id, 'rootpost0000000000000000ab'],
      msteams: ['1700000000001', (r) => [r.path, r.json.replyToId], [`/teams/v3/conversations/${encodeURIComponent('19:abc123@thread.tacv2;messageid=1700000000001')}/activities/1700000000001`, '1700000000001']],
      whatsapp: ['wamid.HBgLMTIz', (r) => r.json.context, { message_id: 'wamid.HBgLMTIz' }],
      webhook: ['t-1', (r) => r.json.threadId, 't-1'],
      signal: ['ignored', (r) => Object.keys(r.json).sort(), ['message', 'number', 'recipients']],
    };
    for (const [id, [threadId, read, expected]] of Object.entries(threads)) {
      const c = caseOf(id);
      const before = platform.requests.filter((r) => c.isSend(r)).length;
      const run = await settled(await agent({ message: `reply in a thread on ${id}`, channel: id, to: c.to, threadId }));
      expect(run.delivery.status, id).toBe('delivered');
      const sent = platform.requests.filter((r) => c.isSend(r)).slice(before);
      expect(read(sent[0]!), id).toEqual(expected);
    }
  });

  it('a mapping templates threadId from the payload (a Slack event\'s thread_ts)', async () => {
    const platform = await platformFake();
    herald = await testApp({
      ...fast,
      channels: { slack: caseOf('slack').config(platform.url) },
      hooks: {
        mappings: [
          {
            id: 'slack-events',
            match: { path: 'slack' },
            messageTemplate: '{{ event.text }}',
            channel: 'slack',
            to: '{{ event.channel }}',
            threadId: '{{ event.thread_ts ? event.thread_ts : event.ts }}',
            wakeMode: 'next-heartbeat',
          },
        ],
      },
    });
    const res = await herald.request(`/hooks/slack`, {
      method: 'POST',
      headers: hookHeaders(),
      body: JSON.stringify({ event: { type: 'app_mention', text: 'status?', channel: 'C0123456789', ts: '1700000000.000200' } }),
    });
    expect(res.status).toBe(202);
    const run = await settled(((await res.json()) as { runId: string }).runId);
    expect(run.delivery.status).toBe('delivered');
    expect(platform.requests.find((r) => r.path === '/chat.postMessage')!.json).toMatchObject({ channel: 'C0123456789', thread_ts: '1700000000.000200' });
  });

  it('an invalid threadId is a 400 naming it', async () => {
    herald = await testApp(fast);
    const res = await herald.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'hi', threadId: 42 }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('threadId');
  });
});
