import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../../helpers/start-herald.js';
import { channelCases } from '../../plugins/channel-cases.js';
import { testApp, type TestApp } from '../app-fixture.js';

/** The filters of every admin list (issue 13): status, mapping, session, agent, channel, time range, text search. */
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const telegram = channelCases.find((c) => c.plugin.id === 'telegram')!;
const post = (body: unknown) => ({ method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) });

async function get<T = any>(app: TestApp, path: string): Promise<T> {
  const res = await app.request(`/admin${path}`, { headers: admin });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}
const ids = async (app: TestApp, path: string, key = 'id') => (await get(app, path)).data.map((r: any) => r[key]);

let platform: FakeServer;
beforeAll(async () => {
  // https://core.telegram.org/bots/api#making-requests: a sent message answers {ok:true, result}
  platform = await startFakeServer(() => ({ body: { ok: true, result: { message_id: 7 } } }));
});
afterAll(() => platform?.close());

const config = () => ({
  channels: { telegram: telegram.config(platform.url) },
  agents: { list: [{ id: 'main', name: 'Main' }, { id: 'support', name: 'Support desk' }] },
  hooks: {
    allowedAgentIds: ['main', 'support'],
    mappings: [
      { id: 'github-issues', match: { path: 'github' }, name: 'GitHub', messageTemplate: 'Issue {{ title }}', channel: 'telegram', to: '555', agentId: 'support' },
      { id: 'deploys', match: { path: 'deploys' }, action: 'wake', textTemplate: 'Deployed {{ version }}', wakeMode: 'next-heartbeat' },
    ],
  },
});

describe('admin list filters', () => {
  it('runs by channel (the resolved delivery channel, else the action channel) and by mapping; sessions by agent', async () => {
    const app = await testApp(config());
    const started = async (path: string, body: unknown) => ((await (await app.request(path, post(body))).json()) as { runId: string }).runId;
    const gh = await started('/hooks/github', { title: 'Crash' });
    const direct = await started('/hooks/agent', { message: 'Ping', name: 'Direct', deliver: false, channel: 'slack' });
    const last = await started('/hooks/agent', { message: 'Pong', name: 'Last', deliver: false });
    await eventually(async () => (await get(app, '/runs?status=succeeded')).data.length === 3);
    // the run's reply delivered (a heartbeat may have delivered one of its own by then)
    await eventually(async () => (await get(app, '/deliveries?status=delivered')).data.filter((d: any) => d.kind === 'run').length === 1);

    expect(await ids(app, '/runs?channel=telegram')).toEqual([gh]);
    expect(await ids(app, '/runs?channel=slack')).toEqual([direct]);
    expect(await ids(app, '/runs?channel=last')).toEqual([last]);
    expect(await ids(app, '/runs?mapping=github-issues')).toEqual([gh]);
    expect(await ids(app, '/runs?mapping=agent')).toEqual([last, direct]);
    expect(await ids(app, '/runs?mapping=agent&q=direct')).toEqual([direct]);
    // a finished status from its index, newest first; none unfinished (read from the unfinished runs only on SQLite)
    expect(await ids(app, '/runs?status=succeeded')).toEqual([last, direct, gh]);
    expect(await ids(app, '/runs?status=queued')).toEqual([]);
    expect(await ids(app, '/runs?status=running&mapping=agent')).toEqual([]);
    expect(await ids(app, '/deliveries?mapping=github-issues', 'runId')).toEqual([gh]);
    expect(await ids(app, '/deliveries?mapping=agent')).toEqual([]);

    // a session's agent is its first message's; each session record names it
    const sessions = await get(app, '/sessions');
    const byKey = Object.fromEntries(sessions.data.map((s: any) => [s.key, s.agentId]));
    const ghRun = await get(app, `/runs/${gh}`);
    expect(byKey[ghRun.sessionKey]).toBe('support');
    expect(await ids(app, '/sessions?agent=support', 'key')).toEqual([ghRun.sessionKey]);
    // the two /agent runs' sessions, and the main session once a heartbeat wrote to it: the default agent's
    const mains = await ids(app, '/sessions?agent=main', 'key');
    const [directRun, lastRun] = await Promise.all([get(app, `/runs/${direct}`), get(app, `/runs/${last}`)]);
    expect(mains.filter((k: string) => k !== 'main').sort()).toEqual([directRun.sessionKey, lastRun.sessionKey].sort());
  });

  it('events by mapping; time ranges and search on every list', async () => {
    const app = await testApp(config());
    await app.request('/hooks/deploys', post({ version: '1.2.3' }));
    await app.request('/hooks/wake', post({ text: 'Unrelated', mode: 'next-heartbeat' }));
    // receipts are written after the answer: wait for both
    await eventually(async () => (await get(app, '/receipts')).data.length === 2);
    expect(await ids(app, '/events?mapping=deploys', 'text')).toEqual(['Deployed 1.2.3']);
    expect(await ids(app, '/events?mapping=wake', 'text')).toEqual(['Unrelated']);
    expect(await ids(app, '/events?q=deployed', 'text')).toEqual(['Deployed 1.2.3']);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    const past = new Date(Date.now() - 3_600_000).toISOString();
    for (const list of ['receipts', 'runs', 'events', 'deliveries', 'sessions']) {
      expect((await get(app, `/${list}?since=${future}`)).data, list).toEqual([]);
      expect((await get(app, `/${list}?until=${past}`)).data, list).toEqual([]);
      expect((await get(app, `/${list}?q=no-such-thing-anywhere`)).data, list).toEqual([]);
    }
    expect((await get(app, `/receipts?since=${past}&until=${future}&mapping=deploys`)).data).toHaveLength(1);
  });

  it('filters and pages the mappings', async () => {
    const app = await testApp(config());
    expect(await ids(app, '/mappings?agent=support')).toEqual(['github-issues']);
    expect(await ids(app, '/mappings?channel=telegram')).toEqual(['github-issues']);
    expect(await ids(app, '/mappings?action=wake')).toEqual(['wake', 'deploys']);
    expect(await ids(app, '/mappings?q=GITHUB')).toEqual(['github-issues']);
    const first = await get(app, '/mappings?limit=3');
    expect(first.data).toHaveLength(3);
    const rest = await get(app, `/mappings?limit=3&cursor=${first.nextCursor}`);
    expect([...first.data, ...rest.data].map((m: any) => m.id)).toEqual(['wake', 'agent', 'github-issues', 'deploys']);
    expect(rest.nextCursor).toBeNull();
  });

  it('answers 400 naming an unknown query parameter', async () => {
    const app = await testApp(config());
    for (const path of ['/receipts?mapping_id=x', '/runs?chanel=telegram', '/events?foo=1', '/deliveries?mapping=a&bar=2', '/sessions?agentId=x', '/mappings?agentId=x']) {
      const res = await app.request(`/admin${path}`, { headers: admin });
      expect(res.status, path).toBe(400);
      const name = path.split('?')[1]!.split('&').at(-1)!.split('=')[0]!;
      expect(await res.json(), path).toEqual({ ok: false, error: `${name} is not a parameter of this route`, code: 'HERALD_INVALID_FIELD' });
    }
  });

  it('documents the new parameters in /admin/openapi.json', async () => {
    const app = await testApp(config());
    const doc = await get(app, '/openapi.json');
    const params = (path: string) => (doc.paths[`/admin${path}`].get.parameters as { name: string }[]).map((p) => p.name);
    for (const path of ['/receipts', '/runs', '/events', '/deliveries', '/sessions']) expect(params(path)).toEqual(expect.arrayContaining(['limit', 'cursor', 'since', 'until', 'q']));
    expect(params('/runs')).toEqual(expect.arrayContaining(['status', 'mapping', 'session', 'agent', 'channel']));
    expect(params('/events')).toEqual(expect.arrayContaining(['status', 'session', 'mapping']));
    expect(params('/deliveries')).toEqual(expect.arrayContaining(['status', 'mapping', 'session', 'agent', 'channel']));
    expect(params('/sessions')).toEqual(expect.arrayContaining(['agent', 'prefix']));
    expect(params('/mappings')).toEqual(expect.arrayContaining(['agent', 'channel', 'action', 'q', 'limit', 'cursor']));
    expect(doc.paths['/admin/sessions'].get.responses['200'].content['application/json'].schema.properties.data.items.properties).toHaveProperty('agentId');
  });
});
