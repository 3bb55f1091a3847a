import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, hookHeaders } from '../helpers/start-herald.js';
import { completion } from '../models/fake-openai.js';
import { testApp } from './app-fixture.js';

/**
 * OpenClaw's `waitForCompletion: true` on /hooks/agent: the answer waits for the run and says how
 * it ended and what became of its reply (docs/gateway/config-hooks.md upstream), never the reply.
 */
let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** a model that answers by the marker in the message, and a generic webhook channel (204 accepted, 400 for `broken`) */
async function gateway(hooks: Record<string, unknown> = {}) {
  fake = await startFakeServer((r) => {
    if (r.path === '/inbox') return r.json?.to === 'broken' ? { status: 400, body: { error: 'no such recipient' } } : { status: 204, body: '' };
    const prompt = JSON.stringify(r.json?.messages ?? []);
    if (prompt.includes('[fail]')) return { status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } };
    if (prompt.includes('[quiet]')) return { body: completion('NO_REPLY') };
    if (prompt.includes('[ack]')) return { body: completion('HEARTBEAT_OK') };
    return { body: completion('The build is green.') };
  });
  return testApp(
    baseConfig({
      hooks,
      models: { providers: { up: { api: 'openai', baseUrl: `${fake.url}/v1` } } },
      agents: { defaults: { model: 'up/m' } },
      channels: { webhook: { url: `${fake.url}/inbox` } },
      delivery: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 1 },
    }),
  );
}

const post = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', headers: { ...hookHeaders(), ...headers }, body: JSON.stringify(body) });
const inbox = () => fake!.requests.filter((r) => r.path === '/inbox');

describe('/hooks/agent waitForCompletion', () => {
  it('answers 202 once the run finished and its reply was delivered, with the completion and without the reply', async () => {
    const app = await gateway();
    const res = await app.request('/hooks/agent', post({ message: 'How is the build?', channel: 'webhook', to: 'ops', waitForCompletion: true }));
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toEqual({ ok: true, runId: expect.any(String), completion: { status: 'ok', replyDisposition: 'visible', delivered: true, deliveryAttempted: true } });
    expect(JSON.stringify(body)).not.toContain('green');
    expect(inbox()).toHaveLength(1);
  });

  it('says silent (NO_REPLY, HEARTBEAT_OK) replies were suppressed, failed runs and failed deliveries', async () => {
    const app = await gateway();
    const quiet = await (await app.request('/hooks/agent', post({ message: '[quiet] nothing to say', channel: 'webhook', to: 'ops', waitForCompletion: true }))).json() as any;
    expect(quiet.completion).toEqual({ status: 'ok', replyDisposition: 'silent', delivered: false, deliveryAttempted: false, deliverySuppressionReason: 'silent' });
    const ack = await (await app.request('/hooks/agent', post({ message: '[ack]', channel: 'webhook', to: 'ops', waitForCompletion: true }))).json() as any;
    expect(ack.completion).toEqual({ status: 'ok', replyDisposition: 'silent', delivered: false, deliveryAttempted: false, deliverySuppressionReason: 'heartbeat' });
    expect(inbox()).toHaveLength(0);
    const failed = await (await app.request('/hooks/agent', post({ message: '[fail]', channel: 'webhook', to: 'ops', waitForCompletion: true }))).json() as any;
    expect(failed.completion).toEqual({ status: 'error', replyDisposition: 'empty', delivered: false, deliveryAttempted: false });
    const refused = await (await app.request('/hooks/agent', post({ message: 'tell them', channel: 'webhook', to: 'broken', waitForCompletion: true }))).json() as any;
    expect(refused.completion).toEqual({ status: 'ok', replyDisposition: 'visible', delivered: false, deliveryAttempted: true, deliveryError: 'delivery-failed' });
    const notAsked = await (await app.request('/hooks/agent', post({ message: 'keep it', deliver: false, waitForCompletion: true }))).json() as any;
    expect(notAsked.completion).toEqual({ status: 'ok', replyDisposition: 'visible', delivered: false, deliveryAttempted: false });
  });

  it('carries the reply only with hooks.completionIncludesReply; without the flag the answer is the usual one', async () => {
    const app = await gateway({ completionIncludesReply: true });
    const withReply = await (await app.request('/hooks/agent', post({ message: 'How is the build?', deliver: false, waitForCompletion: true }))).json() as any;
    expect(withReply.completion).toMatchObject({ status: 'ok', reply: 'The build is green.' });
    const plain = await app.request('/hooks/agent', post({ message: 'How is the build?', deliver: false }));
    expect(await plain.json()).toEqual({ ok: true, runId: expect.any(String) });
  });

  it('refuses a waitForCompletion that is not a boolean, naming it', async () => {
    const app = await gateway();
    const res = await app.request('/hooks/agent', post({ message: 'x', waitForCompletion: 'yes' }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ ok: false, error: 'waitForCompletion must be a boolean' });
  });

  it('an idempotent retry may change only waitForCompletion: it gets the stored answer; another change is 422', async () => {
    const app = await gateway();
    const key = { 'idempotency-key': 'order-42' };
    const first = await app.request('/hooks/agent', post({ message: 'How is the build?', deliver: false, waitForCompletion: true }, key));
    const answer = (await first.json()) as any;
    expect(answer.completion.status).toBe('ok');
    const retry = await app.request('/hooks/agent', post({ message: 'How is the build?', deliver: false }, key));
    expect(retry.status).toBe(202);
    expect(await retry.json()).toEqual(answer);
    const other = await app.request('/hooks/agent', post({ message: 'Something else', deliver: false }, key));
    expect(other.status).toBe(422);
  });
});
