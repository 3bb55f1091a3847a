import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { completion } from './fake-openai.js';

/**
 * agents.defaults.model as { primary, fallbacks }: each model is tried in order when the one
 * before fails (an error, or no answer within its share of the run's time limit), and the run
 * record says which one answered. The upstream is a fake OpenAI-compatible server; its errors
 * follow OpenAI's documented shape (https://platform.openai.com/docs/guides/error-codes).
 */
let herald: TestApp | undefined;
let fake: FakeServer | undefined;
beforeAll(() => {
  delete process.env.OPENAI_API_KEY;
});
afterEach(async () => {
  await herald?.stop();
  await fake?.close();
  herald = fake = undefined;
});

const upstreamError = (status: number, message: string) => ({ status, body: { error: { message, type: 'rate_limit_error', param: null, code: null } } });

function config(url: string, model: unknown, extra: Record<string, unknown> = {}) {
  return baseConfig({
    models: { providers: { one: { api: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-1' }, two: { api: 'openai', baseUrl: `${url}/v1`, apiKey: 'sk-2' } } },
    agents: { defaults: { model, ...extra } },
  });
}

async function runOf(h: TestApp, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await h.request(`/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ deliver: false, wakeMode: 'next-heartbeat', ...body }) });
  expect(res.status).toBe(202);
  const { runId } = (await res.json()) as { runId: string };
  return eventually(async () => {
    const r = (await (await h.request(`/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as Record<string, any>;
    return ['queued', 'running'].includes(r.status) ? undefined : r;
  });
}

describe('model fallbacks', () => {
  it('a string model answers alone, and the run record names it', async () => {
    fake = await startFakeServer(() => ({ body: completion('from one') }));
    herald = await testApp(config(fake.url, 'one/a'));
    expect(await runOf(herald, { message: 'hi' })).toMatchObject({ status: 'succeeded', reply: 'from one', model: 'one/a' });
  });

  it('the primary failing (429), the first fallback answers; the upstream saw them in order', async () => {
    fake = await startFakeServer((req) => (req.json.model === 'a' ? upstreamError(429, 'Rate limit reached') : { body: completion(`from ${req.json.model}`) }));
    herald = await testApp(config(fake.url, { primary: 'one/a', fallbacks: ['two/b', 'one/c'] }));
    expect(await runOf(herald, { message: 'hi' })).toMatchObject({ status: 'succeeded', reply: 'from b', model: 'two/b' });
    expect(fake.requests.map((r) => [r.json.model, r.headers.authorization])).toEqual([
      ['a', 'Bearer sk-1'],
      ['b', 'Bearer sk-2'],
    ]);
    expect(herald.logs.some((l) => l.msg === 'run answered by a fallback model' && l.answeredBy === 'two/b')).toBe(true);
  });

  it('a hanging primary gives way to the fallback within the run time limit', async () => {
    fake = await startFakeServer((req) => (req.json.model === 'slow' ? 'hang' : { body: completion('from the fallback') }));
    herald = await testApp(config(fake.url, { primary: 'one/slow', fallbacks: ['two/quick'] }));
    expect(await runOf(herald, { message: 'hi', timeoutSeconds: 2 })).toMatchObject({ status: 'succeeded', reply: 'from the fallback', model: 'two/quick' });
  });

  it('every model failing fails the run, naming each with its reason', async () => {
    fake = await startFakeServer(() => upstreamError(500, 'The server had an error'));
    herald = await testApp(config(fake.url, { primary: 'one/a', fallbacks: ['two/b'] }));
    const run = await runOf(herald, { message: 'hi' });
    expect(run).toMatchObject({ status: 'failed', model: null });
    expect(run.error).toMatch(/^model one\/a \(provider one\): 500 .*The server had an error; model two\/b \(provider two\): 500 .*The server had an error$/);
  });

  it('a failed run records each model tried, its provider and the cause: a refused connection, a 401', async () => {
    fake = await startFakeServer(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } }));
    // a port nothing listens on: a closed server's
    const closed = await startFakeServer(() => ({ body: {} }));
    const deadUrl = closed.url;
    await closed.close();
    const deadPort = new URL(deadUrl).port;
    herald = await testApp(
      baseConfig({
        models: { providers: { down: { api: 'openai', baseUrl: `${deadUrl}/v1`, apiKey: 'sk-1' }, two: { api: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'sk-2' } } },
        agents: { defaults: { model: { primary: 'down/a', fallbacks: ['two/b'] } } },
      }),
    );
    const run = await runOf(herald, { message: 'hi' });
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(new RegExp(`^model down/a \\(provider down\\): .*ECONNREFUSED 127\\.0\\.0\\.1:${deadPort}.*; model two/b \\(provider two\\): 401 .*Incorrect API key provided`));
  });

  it('a catalogue model without its key fails over to the next model', async () => {
    fake = await startFakeServer(() => ({ body: completion('from the fallback') }));
    herald = await testApp(config(fake.url, { primary: 'openai/gpt-5.2-mini', fallbacks: ['one/a'] }));
    expect(await runOf(herald, { message: 'hi' })).toMatchObject({ status: 'succeeded', model: 'one/a' });
    const alone = await runOf(herald, { message: 'hi', model: 'openai/gpt-5.2-mini', timeoutSeconds: 5 });
    // an override is tried first, then the configured fallbacks and primary: here one/a answers again
    expect(alone).toMatchObject({ status: 'succeeded', model: 'one/a' });
  });

  it('a catalogue model alone without its key fails the run saying which variable to set', async () => {
    herald = await testApp({ agents: { defaults: { model: 'openai/gpt-5.2-mini' } } });
    expect(await runOf(herald, { message: 'hi' })).toMatchObject({
      status: 'failed',
      error: 'model "openai/gpt-5.2-mini" needs OPENAI_API_KEY, which is not set (set it, or configure models.providers.openai)',
    });
  });
});
