import { afterEach, describe, expect, it } from 'vitest';
import { HOOK_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from './app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => herald?.stop());

describe('access log', () => {
  it('writes one line per request with method, path, status, latency, request id and body size, never a body or token', async () => {
    herald = await testApp();
    const marker = `MARKER-${Math.random().toString(36).slice(2)}`;
    const body = JSON.stringify({ text: `secret news ${marker}` });
    const wake = await herald.request(`/hooks/wake?token=${HOOK_TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'req-wake-1' }, body });
    expect(wake.status).toBe(200);
    const agent = await herald.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: `do ${marker}`, deliver: false }) });
    expect(agent.status).toBe(202);
    const refused = await herald.request(`/hooks/wake`, { method: 'POST', headers: hookHeaders(`wrong-${marker}`), body });
    expect(refused.status).toBe(401);
    await herald.gateway.runs.idle();
    await herald.gateway.heartbeat.idle();

    const requests = herald.logs.filter((l) => l.msg === 'request');
    expect(requests).toHaveLength(3);
    expect(requests[0]).toMatchObject({ method: 'POST', path: '/hooks/wake', status: 200, reqId: 'req-wake-1', bodyBytes: Buffer.byteLength(body), mapping: 'wake' });
    expect(typeof requests[0]!.ms).toBe('number');
    expect(requests[1]).toMatchObject({ method: 'POST', path: '/hooks/agent', status: 202, mapping: 'agent' });
    expect(requests[1]!.reqId).toBe(agent.headers.get('x-request-id'));
    expect(requests[2]).toMatchObject({ path: '/hooks/wake', status: 401 });

    expect(herald.logs.some((l) => l.level === 40 && String(l.msg).includes('?token='))).toBe(true);
    const raw = herald.rawLogs();
    expect(raw).not.toContain(marker);
    expect(raw).not.toContain(HOOK_TOKEN);
  });
});
