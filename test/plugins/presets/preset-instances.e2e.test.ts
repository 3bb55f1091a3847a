import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import type { FakeServer } from '../../helpers/fake-server.js';
import { fakeModel, startFakeOpenAI } from '../../models/fake-openai.js';

/**
 * One preset, two entries: two GitHub organisations, each with its own path and webhook secret.
 * Each delivery is signed by GitHub's own library (@octokit/webhooks-methods) with its
 * organisation's secret; each is verified on its own path only, runs under its own mapping id
 * and session key, and is counted, metered and listed apart.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const SECRET_A = 'org-a-webhook-secret-0123';
const SECRET_B = 'org-b-webhook-secret-4567';
const opened = JSON.parse(fs.readFileSync(path.join(root, 'plugins/github/fixtures/github.json'), 'utf8'))[0] as { headers: Record<string, string>; payload: unknown };
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };

let herald: TestApp;
let model: FakeServer;

beforeAll(async () => {
  model = await startFakeOpenAI('on it');
  herald = await testApp({
    ...fakeModel(model),
    hooks: {
      presets: [
        { name: 'github', path: 'gh-a', secret: SECRET_A, deliver: false },
        { name: 'github', path: 'gh-b', secret: SECRET_B, deliver: false },
      ],
    },
  });
});

afterAll(async () => {
  await herald?.stop();
  await model?.close();
});

async function post(hookPath: string, secret: string, delivery = 'd5b2a3c0-1f00-11ef-8a8e-5a1e7d3c2b01') {
  const body = JSON.stringify(opened.payload);
  const res = await herald.request(`/hooks/${hookPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': delivery, 'x-hub-signature-256': await sign(secret, body) },
    body,
  });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as { runId?: string }) };
}

const finished = (runId: string) =>
  eventually(async () => {
    const run = await herald.gateway.store.runs.get(runId);
    return run?.status === 'succeeded' ? run : undefined;
  });

describe('two GitHub organisations on one preset', () => {
  it('verifies each delivery with its own secret on its own path, and runs it as its own entry', async () => {
    // one delivery id on both paths: each path keeps its own keys
    const a = await post('gh-a', SECRET_A);
    const b = await post('gh-b', SECRET_B);
    expect(a).toMatchObject({ status: 202, body: { runId: expect.any(String) } });
    expect(b).toMatchObject({ status: 202, body: { runId: expect.any(String) } });
    expect(b.body!.runId).not.toBe(a.body!.runId);

    expect(await finished(a.body!.runId!)).toMatchObject({ sessionKey: 'hook:gh-a:Codertocat/Hello-World#1' });
    expect(await finished(b.body!.runId!)).toMatchObject({ sessionKey: 'hook:gh-b:Codertocat/Hello-World#1' });
    const view = async (runId: string) => (await (await herald.request(`/admin/runs/${runId}`, { headers: admin })).json()) as { mappingId: string | null };
    expect(await view(a.body!.runId!)).toMatchObject({ mappingId: 'gh-a-issue' });
    expect(await view(b.body!.runId!)).toMatchObject({ mappingId: 'gh-b-issue' });
  });

  it("refuses one organisation's signature on the other's path", async () => {
    expect((await post('gh-b', SECRET_A, 'another-delivery-1')).status).toBe(401);
    expect((await post('gh-a', SECRET_B, 'another-delivery-2')).status).toBe(401);
  });

  it('lists, counts and meters each entry apart', async () => {
    const mappings = (await (await herald.request('/admin/mappings', { headers: admin })).json()) as { data: { id: string; origin: string }[] };
    expect(mappings.data.filter((m) => m.id.endsWith('-issue'))).toEqual([
      expect.objectContaining({ id: 'gh-a-issue', origin: 'hooks.presets[0] (github, mapping 1)' }),
      expect.objectContaining({ id: 'gh-b-issue', origin: 'hooks.presets[1] (github, mapping 1)' }),
    ]);
    const metrics = await (await herald.request('/metrics', { headers: admin })).text();
    expect(metrics).toMatch(/herald_hook_requests_total\{mapping="gh-a-issue",outcome="accepted"\} 1/);
    expect(metrics).toMatch(/herald_hook_requests_total\{mapping="gh-b-issue",outcome="accepted"\} 1/);
    const usage = await eventually(async () => {
      const rows = ((await (await herald.request('/admin/usage?by=mapping', { headers: admin })).json()) as { data: { group: string | null }[] }).data;
      const groups = rows.map((row) => row.group);
      return groups.includes('gh-a-issue') && groups.includes('gh-b-issue') ? groups : undefined;
    });
    expect(usage).toEqual(expect.arrayContaining(['gh-a-issue', 'gh-b-issue']));
  });
});
