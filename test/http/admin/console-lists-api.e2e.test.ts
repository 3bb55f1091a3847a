import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { startFakeServer } from '../../helpers/fake-server.js';
import { API_KEY, GATEWAY_TOKEN, eventually, hookHeaders } from '../../helpers/start-herald.js';
import { channelCases } from '../../plugins/channel-cases.js';
import { testApp, type TestApp } from '../app-fixture.js';

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const SALES_KEY = 'sk-sales-0123456789abcdef0123';

async function get<T = any>(app: TestApp, path: string): Promise<T> {
  const res = await app.request(`/admin${path}`, { headers: admin });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as T;
}

/** a mapping file of two mappings and, beside it, the fixtures of both (which names neither) */
const orders = `- id: orders-paid
  name: Order paid
  match:
    path: orders
    when: headers.x-event = "paid"
  messageTemplate: "Order {{ id }} paid"
  deliver: false
- id: orders-other
  match: { path: orders }
  action: skip
`;
const ordersFixtures = [
  { name: 'paid', headers: { 'X-Event': 'paid' }, payload: { id: 1 }, expect: { kind: 'agent' } },
  { name: 'paid again', headers: { 'X-Event': 'paid' }, payload: { id: 2 }, expect: { kind: 'agent' } },
  { name: 'refunded', headers: { 'X-Event': 'refunded' }, payload: { id: 3 }, expect: { skip: true } },
];

describe('the lists name their runs', () => {
  it("gives each receipt and delivery its run's name, agent and status", async () => {
    // https://core.telegram.org/bots/api#making-requests: a sent message answers {ok:true, result}
    const platform = await startFakeServer(() => ({ body: { ok: true, result: { message_id: 7 } } }));
    const telegram = channelCases.find((c) => c.plugin.id === 'telegram')!;
    const app = await testApp({ agents: { list: [{ id: 'support', name: 'Support' }] }, channels: { telegram: telegram.config(platform.url) } });
    const res = await app.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Refund for 42?', name: 'Refund 42', agentId: 'support', channel: 'telegram', to: '1' }) });
    const { runId } = (await res.json()) as { runId: string };
    const receipts = await eventually(async () => {
      const page = await get(app, '/receipts');
      return page.data[0]?.run?.status === 'succeeded' && page;
    });
    expect(receipts.data[0].run).toEqual({ id: runId, name: 'Refund 42', agentId: 'support', status: 'succeeded' });
    await app.request('/hooks/wake', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'x' }) });
    const both = await eventually(async () => ((await get(app, '/receipts')).data.length === 2 ? get(app, '/receipts') : undefined));
    expect(both.data[0]).toMatchObject({ path: 'wake', run: null });
    const deliveries = await eventually(async () => (await get(app, `/deliveries?run=${runId}`)).data[0]);
    expect(deliveries.run).toEqual({ id: runId, name: 'Refund 42', agentId: 'support', status: 'succeeded' });
    await app.stop();
    await platform.close();
  });
});

describe('GET /admin/receipts?failed=true', () => {
  it('lists the requests whose mapping failed, each with its failure; a refused request is an error but no failed mapping', async () => {
    const broken = `export default (ctx) => {\n  throw new Error('amount ' + ctx.payload.amount + ' is not a number');\n};\n`;
    const app = await testApp(
      { hooks: { mappings: [{ id: 'orders', match: { path: 'orders' }, transform: { module: 'orders.mjs' }, deliver: false }] } },
      { files: { 'transforms/orders.mjs': broken } },
    );
    expect((await app.request('/hooks/orders', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ amount: 'twelve' }) })).status).toBe(500);
    expect((await app.request('/hooks/orders', { method: 'POST', headers: hookHeaders('wrong-token-0123456789'), body: '{}' })).status).toBe(401);
    expect((await app.request('/hooks/wake', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'x' }) })).status).toBe(200);
    await eventually(async () => (await get(app, '/receipts')).data.length === 3);

    const failed = await get(app, '/receipts?failed=true');
    expect(failed.data).toHaveLength(1);
    expect(failed.data[0]).toMatchObject({ path: 'orders', mappingId: 'orders', status: 500, failure: { stage: 'transform', mappingId: 'orders', at: 'orders.mjs:2' } });
    expect(failed.data[0].failure.cause).toBe('Error: amount ‹value› is not a number');
    // result=error holds the refused request too; failed=false is no filter
    expect((await get(app, '/receipts?result=error')).data.map((r: any) => r.status)).toEqual([401, 500]);
    expect((await get(app, '/receipts?failed=false')).data).toHaveLength(3);
    expect((await get(app, '/receipts?failed=true&mapping=wake')).data).toEqual([]);
    const bad = await app.request('/admin/receipts?failed=yes', { headers: admin });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('failed');
    await app.stop();
  });
});

describe('GET /admin/mappings', () => {
  it('shows match as YAML and counts the fixtures of each mapping of a file', async () => {
    const app = await testApp({ hooks: { mappingsDir: './maps' } }, { files: { 'maps/orders.yaml': orders, 'maps/orders.test.json': JSON.stringify(ordersFixtures) } });
    const { data } = await get(app, '/mappings?q=orders');
    const byId = Object.fromEntries(data.map((m: any) => [m.id, m]));
    expect(byId['orders-paid'].matchText).toBe('path: orders\nwhen: headers.x-event = "paid"');
    expect(byId['orders-other'].matchText).toBe('path: orders');
    expect(byId['orders-paid'].fixtures.map((f: any) => f.name)).toEqual(['paid', 'paid again']);
    expect(byId['orders-other'].fixtures.map((f: any) => f.name)).toEqual(['refunded']);
    expect(byId['orders-paid'].fixtureFile).toMatch(/maps[/\\]orders\.test\.json$/);
    const wake = (await get(app, '/mappings?q=wake')).data[0];
    expect(wake).toMatchObject({ id: 'wake', fixtureFile: null, fixtures: [] });
    await app.stop();
  });

  it("counts a preset's fixtures (plugins/<id>/fixtures) per mapping of each entry, on the entry's own path", async () => {
    const app = await testApp({ hooks: { presets: [{ name: 'github', path: 'gh-a', secret: 'github-secret-0123456789' }] } });
    const { data } = await get(app, '/mappings?path=gh-a');
    const counts = Object.fromEntries(data.map((m: any) => [m.id, m.fixtures.length]));
    const cases = JSON.parse(fs.readFileSync(path.resolve('plugins/github/fixtures/github.json'), 'utf8')) as { headers?: Record<string, string> }[];
    // every case meets one of the preset's mappings, and only one
    expect(Object.values(counts).reduce((a: number, b) => a + (b as number), 0)).toBe(cases.length);
    const owner = (event: string) => data.find((m: any) => m.fixtures.some((f: any) => f.headers?.['X-GitHub-Event'] === event));
    // the issue and the push are told apart: each counts with its own mapping
    expect(owner('issues').id).not.toBe(owner('push').id);
    expect(Object.values(counts).filter((n) => (n as number) > 0).length).toBeGreaterThan(1);
    expect(owner('issues').fixtureFile).toMatch(/plugins[/\\]github[/\\]fixtures[/\\]github\.json$/);
    await app.stop();
  });
});

describe('GET /admin/files and /admin/vector-stores', () => {
  it("lists every key's files and vector stores, with each store's files by status", async () => {
    const app = await testApp({
      agents: { list: [{ id: 'support' }, { id: 'sales' }] },
      platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'sales-only', key: SALES_KEY, agents: ['sales'] }] },
    });
    const client = new OpenAI({ baseURL: `${app.origin}/v1`, fetch: app.fetch, apiKey: API_KEY, maxRetries: 0 });
    const sales = new OpenAI({ baseURL: `${app.origin}/v1`, fetch: app.fetch, apiKey: SALES_KEY, maxRetries: 0 });
    const refunds = '# Refunds\n\nRefunds are issued within 14 days of purchase.\n';
    const mine = await client.files.create({ file: await toFile(Buffer.from(refunds), 'refunds.md'), purpose: 'assistants' });
    const theirs = await sales.files.create({ file: await toFile(Buffer.from('pricing'), 'pricing.txt'), purpose: 'user_data' });
    const store = await sales.vectorStores.create({ name: 'Policies' });
    await sales.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from(refunds), 'policy.md'));

    const files = await get(app, '/files');
    expect(files.total).toBe(3);
    const byName = Object.fromEntries(files.data.map((f: any) => [f.filename, f]));
    expect(byName['refunds.md']).toMatchObject({ id: mine.id, bytes: Buffer.byteLength(refunds), purpose: 'assistants', status: 'processed', agents: null, vectorStores: [] });
    expect(byName['pricing.txt']).toMatchObject({ id: theirs.id, purpose: 'user_data', agents: ['sales'] });
    expect(byName['policy.md'].vectorStores).toEqual([{ id: store.id, status: 'completed' }]);
    expect(Date.parse(byName['refunds.md'].createdAt)).toBeGreaterThan(0);
    // newest first
    expect(files.data[0].filename).toBe('policy.md');
    expect((await get(app, '/files?q=pricing')).data.map((f: any) => f.id)).toEqual([theirs.id]);
    expect((await get(app, '/files?limit=1')).data).toHaveLength(1);

    const stores = await get(app, '/vector-stores');
    expect(stores).toMatchObject({ total: 1 });
    expect(stores.data[0]).toMatchObject({
      id: store.id,
      name: 'Policies',
      agents: ['sales'],
      bytes: Buffer.byteLength(refunds),
      fileCounts: { completed: 1, in_progress: 0, failed: 0, cancelled: 0, total: 1 },
      files: [{ fileId: byName['policy.md'].id, filename: 'policy.md', status: 'completed', lastError: null }],
    });

    const refused = await app.request('/admin/files?limit=0', { headers: admin });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('limit');
    expect((await app.request('/admin/vector-stores')).status).toBe(401);
    await app.stop();
  });
});

describe('GET /admin/agents', () => {
  it('says which agent is the default one, and whether hooks may use each', async () => {
    const app = await testApp({ agents: { list: [{ id: 'support' }, { id: 'sales', default: true }, { id: 'ops' }] }, hooks: { allowedAgentIds: ['support', 'sales'] } });
    const body = await get(app, '/agents');
    expect(body.defaultAgentId).toBe('sales');
    expect(body.data.map((a: any) => [a.id, a.runsHooks, a.hooksAllowed])).toEqual([
      ['support', false, true],
      ['sales', true, true],
      ['ops', false, false],
    ]);
    await app.stop();
  });
});
