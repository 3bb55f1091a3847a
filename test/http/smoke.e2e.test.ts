import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, eventually, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';

let herald: RunningHerald | undefined;
afterEach(async () => herald?.stop());

describe('gateway smoke', () => {
  it('accepts a wake and an agent run and shows them in the admin API', async () => {
    herald = await startHerald();
    const wake = await fetch(`${herald.url}/hooks/wake`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ text: 'hello' }) });
    expect(wake.status).toBe(200);
    expect(await wake.json()).toEqual({ ok: true, mode: 'now' });
    const agent = await fetch(`${herald.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'do it', deliver: false }) });
    expect(agent.status).toBe(202);
    const { runId } = (await agent.json()) as { runId: string };
    const run = await eventually(async () => {
      const res = await fetch(`${herald!.url}/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
      const body = (await res.json()) as { status: string };
      return body.status === 'succeeded' && body;
    });
    expect(run).toMatchObject({ id: runId, status: 'succeeded', name: 'Hook', message: 'do it' });
  });
});
