import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookHeaders, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * The hook intake use case (idempotency claim, mapping, dispatch, complete or release) through
 * `app.request()`: no socket, the real gateway behind it.
 */
/** a config folder whose ./transforms holds the files */
function transforms(files: Record<string, string>): string {
  const dir = tempDir('herald-transforms-');
  fs.mkdirSync(path.join(dir, 'transforms'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'transforms', name), text);
  return dir;
}

async function post(app: TestApp, hookPath: string, body: unknown, key?: string) {
  const res = await app.request(`/hooks/${hookPath}`, {
    method: 'POST',
    headers: { ...hookHeaders(), ...(key !== undefined && { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, any>), replayed: res.headers.get('idempotent-replayed') };
}

const mappings = [
  { id: 'tickets', match: { path: 'tickets' }, action: 'agent', messageTemplate: 'Ticket {{ payload.id }}', idempotencyKey: '{{ payload.id }}' },
  { id: 'quiet', match: { path: 'quiet' }, action: 'agent', messageTemplate: 'x', transform: { module: 'skip.mjs' } },
  { id: 'flaky', match: { path: 'flaky' }, action: 'agent', messageTemplate: 'x', transform: { module: 'flaky.mjs' } },
];

async function appWithMappings(): Promise<TestApp> {
  const dir = transforms({
    'skip.mjs': 'export default () => null;\n',
    // fails on its first call only: the second call with the same key must be processed afresh
    'flaky.mjs': 'let calls = 0;\nexport default () => { calls += 1; if (calls === 1) throw new Error("first call fails"); return { name: "Flaky" }; };\n',
  });
  return testApp({ hooks: { mappings } }, { dir });
}

describe('hook intake', () => {
  it('runs a call once per Idempotency-Key: the repeat is answered from the store, one run exists', async () => {
    const app = await testApp();
    const first = await post(app, 'agent', { message: 'Deploy done', deliver: false }, 'deploy-1');
    expect(first).toMatchObject({ status: 202, replayed: null });
    const again = await post(app, 'agent', { message: 'Deploy done', deliver: false }, 'deploy-1');
    expect(again).toEqual({ status: 202, body: first.body, replayed: 'true' });
    expect((await app.gateway.store.runs.get(first.body!.runId))?.message).toBe('Deploy done');
    expect((await post(app, 'agent', { message: 'Another', deliver: false }, 'deploy-1')).status).toBe(422);
  });

  it("takes a mapping's idempotencyKey as the sender's delivery id: another body with that id is a replay", async () => {
    const app = await appWithMappings();
    const first = await post(app, 'tickets', { id: 'T-7', note: 'first' });
    expect(first).toMatchObject({ status: 202, replayed: null });
    expect(await post(app, 'tickets', { id: 'T-7', note: 'sent again, other bytes' })).toEqual({ status: 202, body: first.body, replayed: 'true' });
    const other = await post(app, 'tickets', { id: 'T-8' });
    expect(other.body!.runId).not.toBe(first.body!.runId);
    await app.gateway.runs.idle();
    expect((await app.gateway.store.runs.get(other.body!.runId))?.message).toBe('Ticket T-8');
  });

  it('answers 204 for a call its transform skips, and names the mapping in the access log', async () => {
    const app = await appWithMappings();
    expect(await post(app, 'quiet', { any: 'thing' }, 'q-1')).toEqual({ status: 204, body: null, replayed: null });
    expect(await post(app, 'quiet', { any: 'thing' }, 'q-1')).toEqual({ status: 204, body: null, replayed: 'true' });
    expect(app.logs.some((l) => l.mapping === 'quiet' && l.status === 204)).toBe(true);
  });

  it('releases the key of a failed call, so the retry is processed afresh; the failure names its mapping', async () => {
    const app = await appWithMappings();
    const failed = await post(app, 'flaky', {}, 'f-1');
    expect(failed).toEqual({ status: 500, body: { ok: false, error: 'hook mapping failed' }, replayed: null });
    expect(app.logs.some((l) => l.mapping === 'flaky' && l.status === 500)).toBe(true);
    const retry = await post(app, 'flaky', {}, 'f-1');
    expect(retry).toMatchObject({ status: 202, replayed: null });
    await app.gateway.runs.idle();
    expect((await app.gateway.store.runs.get(retry.body!.runId))?.name).toBe('Flaky');
  });
});
