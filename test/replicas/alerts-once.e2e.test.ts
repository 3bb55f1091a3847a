import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { dropSchema, requirePostgres, testPgUrl, uniqueSchema } from '../helpers/postgres.js';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { alertTexts, config, platforms } from '../runtime/alert-platforms.js';

/**
 * Alerts on several replicas sharing one PostgreSQL schema: every replica checks the rules, the
 * store lets one raise (and one resolve) each incident, so the operator hears of it once.
 */
let heralds: TestApp[] = [];
let fakes: FakeServer[] = [];
let proxies: TcpProxy[] = [];
const schemas: string[] = [];
afterEach(async () => {
  for (const h of heralds.splice(0)) await h.stop();
  await Promise.all(fakes.splice(0).map((f) => f.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});

async function fake(handler: Parameters<typeof startFakeServer>[0]) {
  const server = await startFakeServer(handler);
  fakes.push(server);
  return server;
}

async function admin(herald: TestApp, path: string): Promise<any> {
  const res = await herald.request(`/admin${path}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.json();
}

async function hook(herald: TestApp, path: string, body: unknown): Promise<string> {
  const res = await herald.request(`/hooks/${path}`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

const settled = (herald: TestApp, runId: string) => eventually(async () => !['queued', 'running'].includes((await admin(herald, `/runs/${runId}`)).status));

describe('alerts on three replicas sharing PostgreSQL', () => {
  it('alerts an incident once and resolves it once, whichever replicas see it', async () => {
    await requirePostgres();
    const schema = uniqueSchema('herald_alerts');
    schemas.push(schema);
    const p = await platforms(fake);
    const cfg = config(p, {
      storage: { postgres: { url: testPgUrl(), schema, poolSize: 4 } },
      alerts: { rules: [{ on: 'runs.failing', mapping: 'github', count: 3 }], evaluateEvery: '50ms' },
    });
    for (let i = 0; i < 3; i++) heralds.push(await testApp(cfg));
    // the failures arrive at different replicas
    for (const [i, herald] of heralds.entries()) await settled(herald, await hook(herald, 'github', { note: `FAIL ${i}` }));
    await eventually(() => alertTexts(p).some((t) => t.startsWith('herald alert: runs.failing')));
    await settled(heralds[1]!, await hook(heralds[1]!, 'github', { note: 'fine' }));
    await eventually(() => alertTexts(p).some((t) => t.startsWith('herald resolved: runs.failing')));

    // every notice is a delivery row: once all are delivered, none was queued twice
    const notices = await eventually(async () => {
      const rows = (await admin(heralds[2]!, '/deliveries?limit=100')).data.filter((d: any) => d.kind === 'alert');
      return rows.every((d: any) => d.status === 'delivered') && rows;
    });
    // two notices (raised, resolved) to two targets (telegram, webhook)
    expect(notices).toHaveLength(4);
    expect(alertTexts(p).filter((t) => t.includes('runs.failing'))).toHaveLength(2);
    const alerts = (await admin(heralds[0]!, '/alerts?condition=runs.failing')).data;
    expect(alerts.map((a: any) => [a.status, a.notified])).toEqual([['resolved', true]]);
  });

  it('store.unreachable: a replica that loses the database says so through the channel itself, and resolves it through the outbox once back', async () => {
    await requirePostgres();
    const schema = uniqueSchema('herald_alerts');
    schemas.push(schema);
    const pg = new URL(testPgUrl());
    const proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
    proxies.push(proxy);
    pg.port = String(proxy.port);
    const p = await platforms(fake);
    const herald = await testApp(config(p, { storage: { postgres: { url: pg.toString(), schema, poolSize: 4 } }, alerts: { rules: [{ on: 'store.unreachable' }], evaluateEvery: '100ms' } }));
    heralds.push(herald);
    await proxy.cut();
    const down = await eventually(() => alertTexts(p).find((t) => t.startsWith('herald alert: store.unreachable')));
    expect(down).toContain('the database did not answer replica');
    // the webhook target heard it straight from the channel too
    await eventually(() => p.webhook.requests.some((r) => JSON.stringify(r.json).includes('herald alert: store.unreachable')));
    await proxy.restore();
    await eventually(() => alertTexts(p).find((t) => t.startsWith('herald resolved: store.unreachable')));
    const [alert] = (await admin(herald, '/alerts?condition=store.unreachable')).data;
    expect(alert).toMatchObject({ status: 'resolved', notified: true });
    expect(alertTexts(p).filter((t) => t.includes('store.unreachable'))).toHaveLength(2);
  });
});
