import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PENDING_EVENTS } from '../../src/runtime/main-session.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { completion } from '../models/fake-openai.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const wake = async (h: TestApp, text: string, mode = 'next-heartbeat') => {
  const res = await h.request(`/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text, mode }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { eventOutcome: string }).eventOutcome;
};
const SENT = /^(Deploy finished|Backup done|Disk full|event \d+|CI is red on main|Pager: db latency|remember me|and me)$/;
/** the events these tests sent (a heartbeat reply may add others, e.g. a delivery failure with no channel configured) */
const events = async (h: TestApp) => {
  const res = await h.request(`/admin/events?session=main&limit=1000`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  return ((await res.json()) as { data: { id: number; text: string; status: string }[] }).data.filter((e) => SENT.test(e.text));
};

describe('main session events', () => {
  it('skips a repeat of the previous pending event, but not once it has been handled', async () => {
    herald = await testApp();
    // the answer says which, as OpenClaw's `eventOutcome` does
    expect(await wake(herald, 'Deploy finished')).toBe('queued');
    expect(await wake(herald, 'Deploy finished')).toBe('coalesced');
    expect((await events(herald)).map((e) => e.text)).toEqual(['Deploy finished']);
    await wake(herald, 'Backup done');
    await wake(herald, 'Deploy finished');
    expect((await events(herald)).map((e) => e.text)).toEqual(['Deploy finished', 'Backup done', 'Deploy finished']);

    // a heartbeat handles them; the same news later is news again
    await wake(herald, 'Disk full', 'now');
    await eventually(async () => (await events(herald!)).every((e) => e.status === 'done'));
    await wake(herald, 'Disk full');
    expect((await events(herald))[0]).toMatchObject({ text: 'Disk full', status: 'pending' });
  });

  it(`keeps at most ${MAX_PENDING_EVENTS} pending events, dropping the oldest`, async () => {
    herald = await testApp();
    for (let i = 1; i <= 25; i++) await wake(herald, `event ${i}`);
    const all = await events(herald);
    const pending = all.filter((e) => e.status === 'pending').map((e) => e.text);
    expect(pending).toHaveLength(20);
    expect(pending).toContain('event 25');
    expect(pending).toContain('event 6');
    expect(pending).not.toContain('event 5');
    expect(await herald.gateway.store.events.countPending('main')).toBe(20);
  });

  it('a wake with mode now runs a heartbeat over the pending events', async () => {
    herald = await testApp();
    await wake(herald, 'CI is red on main');
    await wake(herald, 'Pager: db latency', 'now');
    await eventually(async () => (await events(herald!)).every((e) => e.status === 'done'));
    const transcript = await herald.gateway.store.sessions.messages('main');
    expect(transcript.find((m) => m.role === 'assistant')).toMatchObject({ role: 'assistant', content: '2 new events:\n- CI is red on main\n- Pager: db latency' });
  });

  it('events survive a restart', async () => {
    herald = await testApp({});
    await wake(herald, 'remember me');
    await wake(herald, 'and me');
    herald = await herald.restart();
    const after = await events(herald);
    expect(after.map((e) => e.text).sort()).toEqual(['and me', 'remember me']);
  });
});

describe('heartbeat turns that wait on a model', () => {
  let fake: FakeServer | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const withFakeModel = (url: string, timeoutSeconds = 600) =>
    baseConfig({
      models: { providers: { fake: { api: 'openai', baseUrl: `${url}/v1` } } },
      agents: { defaults: { model: 'fake/test-model', timeoutSeconds } },
    });

  it('a shutdown cuts a hanging heartbeat short; its events stay pending and are handled after the restart', async () => {
    fake = await startFakeServer(() => 'hang');
    herald = await testApp(withFakeModel(fake.url));
    await wake(herald, 'Disk full', 'now');
    await eventually(() => fake!.requests.length === 1);
    fake.handle(() => ({ body: completion('Looked at the disk.') }));
    herald = await herald.restart();
    await eventually(async () => (await events(herald!)).every((e) => e.status === 'done'));
    const transcript = await herald.gateway.store.sessions.messages('main');
    expect(transcript.at(-1)).toMatchObject({ role: 'assistant', content: 'Looked at the disk.' });
  });

  it('a heartbeat past agents.defaults.timeoutSeconds fails and leaves its events pending for the next one', async () => {
    fake = await startFakeServer(() => 'hang');
    herald = await testApp(withFakeModel(fake.url, 0.3));
    await wake(herald, 'CI is red on main', 'now');
    await eventually(() => herald!.logs.some((l) => l.msg === 'heartbeat turn failed'));
    expect((await events(herald)).map((e) => e.status)).toEqual(['pending']);
    fake.handle(() => ({ body: completion('On it.') }));
    await wake(herald, 'Pager: db latency', 'now');
    await eventually(async () => (await events(herald!)).every((e) => e.status === 'done'));
    expect(fake.requests.at(-1)!.json.messages.at(-1).content).toContain('CI is red on main');
  });
});
