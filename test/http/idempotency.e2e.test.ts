import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseConfig, eventually, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from './app-fixture.js';
import { sqliteDb } from '../helpers/sqlite-db.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

async function post(hookPath: string, body: unknown, key?: string) {
  const headers = { ...hookHeaders(), ...(key !== undefined && { 'idempotency-key': key }) };
  const res = await herald!.request(`/hooks/${hookPath}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return {
    status: res.status,
    body: res.status === 204 ? null : ((await res.json()) as Record<string, any>),
    replayed: res.headers.get('idempotent-replayed'),
    retryAfter: res.headers.get('retry-after'),
  };
}

const count = (sql: string) => (sqliteDb(herald!.gateway.store).prepare(sql).get() as { n: number }).n;
const runs = () => count('SELECT count(*) AS n FROM runs');

const agentBody = { message: 'Summarise the incident', name: 'Ops', deliver: false };

describe('Idempotency-Key on the webhook surface', () => {
  it('answers a repeat with the stored response and Idempotent-Replayed, starting one run', async () => {
    herald = await testApp();
    const first = await post('agent', agentBody, 'deploy-42');
    expect(first).toMatchObject({ status: 202, replayed: null });
    const again = await post('agent', agentBody, 'deploy-42');
    expect(again).toEqual({ status: 202, body: first.body, replayed: 'true', retryAfter: null });
    expect(runs()).toBe(1);
    expect((await herald.gateway.store.runs.get(first.body!.runId))?.message).toBe('Summarise the incident');

    // a wake is remembered too: one event, not two
    expect(await post('wake', { text: 'Deploy finished', mode: 'next-heartbeat' }, 'wake-1')).toMatchObject({ status: 200, replayed: null });
    expect(await post('wake', { text: 'Deploy finished', mode: 'next-heartbeat' }, 'wake-1')).toMatchObject({ status: 200, body: { ok: true, mode: 'next-heartbeat', eventOutcome: 'queued' }, replayed: 'true' });
    expect(count("SELECT count(*) AS n FROM events WHERE text = 'Deploy finished'")).toBe(1);
  });

  it('refuses the same key with another request (422), scopes keys per hook path, and 400s a malformed key', async () => {
    herald = await testApp();
    const first = await post('agent', agentBody, 'k-1');
    const other = await post('agent', { ...agentBody, message: 'Something else' }, 'k-1');
    expect(other).toEqual({ status: 422, body: { ok: false, error: 'this Idempotency-Key was used for a different request' }, replayed: null, retryAfter: null });
    // on /agent the parsed body is the request (a retry may change only waitForCompletion): whitespace outside the JSON is the same one
    expect(await post('agent', `${JSON.stringify(agentBody)}\n`, 'k-1')).toMatchObject({ status: 202, replayed: 'true' });
    // another path, another scope
    const wake = await post('wake', { text: 'hello' }, 'k-1');
    expect(wake).toMatchObject({ status: 200, replayed: null });
    // elsewhere the hash is over the raw body: the same JSON with whitespace outside it is another request
    expect((await post('wake', `${JSON.stringify({ text: 'hello' })}\n`, 'k-1')).status).toBe(422);
    expect(runs()).toBe(1);
    expect((await post('agent', agentBody, 'k-1')).body).toEqual(first.body);

    const tooLong = await post('agent', agentBody, 'x'.repeat(256));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body!.error).toContain('Idempotency-Key');
    expect((await post('agent', agentBody, '')).status).toBe(400);
    expect((await post('agent', agentBody, 'x'.repeat(255))).status).toBe(202);
  });

  it('does not spend a key on a refused request: the corrected retry is processed', async () => {
    herald = await testApp();
    expect((await post('agent', { name: 'no message' }, 'retry-me')).status).toBe(400);
    expect((await post('agent', 'not json', 'retry-me')).status).toBe(400);
    const fixed = await post('agent', agentBody, 'retry-me');
    expect(fixed).toMatchObject({ status: 202, replayed: null });
    expect(runs()).toBe(1);
  });

  it('replays the stored response after a restart', async () => {
    herald = await testApp();
    const first = await post('agent', agentBody, 'survives');
    herald = await herald.restart();
    const again = await post('agent', agentBody, 'survives');
    expect(again).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(runs()).toBe(1);
  });

  it('after a crash between storing the run and completing the key, a retry gets that run, not a second one', async () => {
    herald = await testApp();
    const first = await post('agent', agentBody, 'crashed');
    // the state such a crash leaves: the run stored, its key still in progress, its process gone
    sqliteDb(herald.gateway.store).prepare("UPDATE idempotency_keys SET status = 'in_progress', response_status = NULL, response_body = NULL, locked_until = 0 WHERE key = 'crashed'").run();
    herald = await herald.restart();
    expect(await post('agent', agentBody, 'crashed')).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(runs()).toBe(1);
  });

  it('answers 409 with Retry-After while the first request is still being processed', async () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'herald-idem-'));
    const gate = path.join(dir, 'open-the-gate');
    herald = await testApp(
      baseConfig({ hooks: { transformTimeoutMs: 30_000, mappings: [{ id: 'gated', match: { path: 'gated' }, deliver: false, transform: { module: 'gated.mjs' } }] } }),
      {
        dir,
        files: {
          'transforms/gated.mjs': `import fs from 'node:fs';
export default async function gated() {
  while (!fs.existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 10));
  return { message: 'through the gate' };
}`,
        },
      },
    );
    const first = post('gated', { n: 1 }, 'slow-1');
    await eventually(() => count("SELECT count(*) AS n FROM idempotency_keys WHERE key = 'slow-1' AND status = 'in_progress'") === 1);
    const during = await post('gated', { n: 1 }, 'slow-1');
    expect(during).toMatchObject({ status: 409, retryAfter: '1', body: { ok: false, error: 'a request with this Idempotency-Key is still being processed' } });
    // another body too: the first may still fail and free the key, so its outcome is not known yet
    expect((await post('gated', { n: 2 }, 'slow-1')).status).toBe(409);
    fs.writeFileSync(gate, '');
    const done = await first;
    expect(done).toMatchObject({ status: 202, replayed: null });
    expect(await post('gated', { n: 1 }, 'slow-1')).toMatchObject({ status: 202, body: done.body, replayed: 'true' });
    expect((await post('gated', { n: 2 }, 'slow-1')).status).toBe(422);
    expect(runs()).toBe(1);
  });

  it("works on the gmail preset path with the watcher's gmail:<account>:<messageId> keys", async () => {
    herald = await testApp({ hooks: { presets: ['gmail'] } });
    const mail = { source: 'gmail', account: 'ada@example.com', historyId: '9001', messages: [{ id: '18f2a', from: 'bob@example.com', subject: 'Invoice', snippet: 'Please pay', body: 'Full text' }] };
    const first = await post('gmail', mail, 'gmail:ada@example.com:18f2a');
    expect(first.status).toBe(202);
    const again = await post('gmail', mail, 'gmail:ada@example.com:18f2a');
    expect(again).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(runs()).toBe(1);
    expect((await herald.gateway.store.runs.get(first.body!.runId))?.sessionKey).toBe('hook:gmail:18f2a');
  });

  it('forgets a key after hooks.idempotencyTtlHours', async () => {
    herald = await testApp({ hooks: { idempotencyTtlHours: 0.0002 } }); // 0.72 s
    const first = await post('agent', agentBody, 'short-lived');
    const later = await eventually(async () => {
      const res = await post('agent', agentBody, 'short-lived');
      return res.replayed === null ? res : undefined;
    });
    expect(later.status).toBe(202);
    expect(later.body!.runId).not.toBe(first.body!.runId);
  });
});
