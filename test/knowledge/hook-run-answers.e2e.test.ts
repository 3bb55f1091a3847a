import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp } from '../http/app-fixture.js';

const HANDBOOK = fileURLToPath(new URL('../../examples/handbook.md', import.meta.url));

describe('the embedded model in hook runs', () => {
  it("answers a question from the agent's knowledge, as chat does, with the citations in the run record", async () => {
    const herald = await testApp();
    const form = new FormData();
    form.append('agent_id', 'main');
    form.append('file', new Blob([fs.readFileSync(HANDBOOK)], { type: 'text/markdown' }), path.basename(HANDBOOK));
    expect((await herald.request('/v1/knowledge/upload', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form })).status).toBe(201);

    // a Slack slash command's text as a mapping would pass it on
    const res = await herald.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'how long do refunds take?', deliver: false }) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
    const run = await eventually(async () => {
      const r = (await (await herald.request(`/admin/runs/${runId}`, { headers: admin })).json()) as Record<string, any>;
      return r.status === 'succeeded' ? r : undefined;
    });
    expect(run.reply).toContain('Refunds are issued within 14 days of purchase');
    expect(run.reply).toContain('handbook.md');
    const answer = (run.transcript as { role: string; citations?: string[] }[]).find((m) => m.role === 'assistant');
    expect(answer?.citations?.length).toBeGreaterThan(0);

    // an event that asks nothing is still only received
    const event = await herald.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Deploy finished on prod', deliver: false }) });
    const other = ((await event.json()) as { runId: string }).runId;
    const received = await eventually(async () => {
      const r = (await (await herald.request(`/admin/runs/${other}`, { headers: admin })).json()) as Record<string, any>;
      return r.status === 'succeeded' ? r : undefined;
    });
    expect(received.reply).toMatch(/^Received: "Deploy finished on prod"/);
  });
});
