import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseConfig, GATEWAY_TOKEN, startHerald, type RunningHerald } from '../helpers/start-herald.js';

let herald: RunningHerald;
beforeAll(async () => {
  herald = await startHerald(baseConfig());
});
afterAll(async () => herald?.stop());

/** what a client sees of an answer: status, the headers that matter, the body */
async function seen(res: Response) {
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('GET /healthz answered from Node’s request (herald serve)', () => {
  it('answers as the app’s route does: the same status, type and body, a request id, a debug log line and the metrics', async () => {
    const fast = await fetch(`${herald.url}/healthz`, { headers: { 'x-request-id': 'probe-7' } });
    expect(fast.headers.get('x-request-id')).toBe('probe-7');
    // a query sends it through hono, whose route answers it
    const routed = await fetch(`${herald.url}/healthz?from=hono`);
    const answer = await seen(fast);
    expect(answer).toEqual({ status: 200, type: 'application/json', body: '{"ok":true}' });
    expect(answer).toEqual(await seen(routed));

    const unsafe = await fetch(`${herald.url}/healthz`, { headers: { 'x-request-id': 'evil id\twith tab' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const head = await fetch(`${herald.url}/healthz`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    // another method goes to the app, which knows no such route
    expect((await fetch(`${herald.url}/healthz`, { method: 'POST' })).status).toBe(404);

    const lines = herald.logs.filter((l) => l.msg === 'request' && l.path === '/healthz');
    expect(lines.find((l) => l.reqId === 'probe-7')).toMatchObject({ level: 20, method: 'GET', status: 200 });
    const metrics = await (await fetch(`${herald.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    // three GETs answered 200 (two here, one by hono), and the HEAD
    expect(metrics).toContain('herald_http_requests_total{surface="other",method="GET",status="200"} 3\n');
    expect(metrics).toContain('herald_http_requests_total{surface="other",method="HEAD",status="200"} 1\n');
  });
});
