import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from './app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => herald?.stop());

describe('gateway smoke', () => {
  it('accepts a wake and an agent run and shows them in the admin API', async () => {
    herald = await testApp();
    const wake = await herald.request(`/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'hello' }) });
    expect(wake.status).toBe(200);
    expect(await wake.json()).toEqual({ ok: true, mode: 'now', eventOutcome: 'queued' });
    const agent = await herald.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'do it', deliver: false }) });
    expect(agent.status).toBe(202);
    const { runId } = (await agent.json()) as { runId: string };
    const run = await eventually(async () => {
      const res = await herald!.request(`/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
      const body = (await res.json()) as { status: string };
      return body.status === 'succeeded' && body;
    });
    expect(run).toMatchObject({ id: runId, status: 'succeeded', name: 'Hook', message: 'do it' });
  });

  it('gives runs and their made-up session keys time-ordered ids (UUID v7): a later run sorts after an earlier one', async () => {
    herald = await testApp();
    const accept = async () => {
      const res = await herald!.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'do it', deliver: false }) });
      return ((await res.json()) as { runId: string }).runId;
    };
    const first = await accept();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await accept();
    const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(first).toMatch(v7);
    expect(second).toMatch(v7);
    expect(first < second).toBe(true);
    const run = (await (await herald.request(`/admin/runs/${second}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { sessionKey: string };
    // a made-up session is named after its run
    expect(run.sessionKey).toBe(`hook:${second}`);
  });
});
