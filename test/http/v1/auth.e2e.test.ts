import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, baseConfig } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => herald?.stop());

const HASHED_KEY = 'sk-hashed-key-abcdefghijklmnop';
const LIMITED_KEY = 'sk-limited-key-abcdefghijklmnop';

const config = (overrides: Record<string, unknown> = {}) =>
  baseConfig({
    agents: { list: [{ id: 'support' }, { id: 'sales' }] },
    platform: {
      apiKeys: [
        { name: 'test', key: API_KEY },
        { name: 'hashed', keyHash: createHash('sha256').update(HASHED_KEY).digest('hex') },
        { name: 'limited', key: LIMITED_KEY, agents: ['sales'] },
      ],
      ...overrides,
    },
  });

const get = (path: string, token?: string) => herald!.request(`${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('/v1 authentication', () => {
  it('accepts configured keys and hashed keys; refuses a missing key, a wrong key, the hook token and the gateway token', async () => {
    herald = await testApp(config());
    expect((await get('/v1/models', API_KEY)).status).toBe(200);
    expect((await get('/v1/models', HASHED_KEY)).status).toBe(200);
    for (const token of [undefined, 'sk-nope-0000000000000000', HOOK_TOKEN, GATEWAY_TOKEN]) {
      const res = await get('/v1/models', token);
      expect(res.status, String(token)).toBe(401);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key', param: null } });
    }
    expect(herald.rawLogs()).not.toContain(API_KEY);
    expect(herald.rawLogs()).not.toContain('sk-nope-0000000000000000');
  });

  it('limits a key to its agents: every other agent, existing or not, is 404 alike', async () => {
    herald = await testApp(config());
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: LIMITED_KEY, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['sales']);
    const denied = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    const missing = await client.chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.NotFoundError);
    expect(denied).toMatchObject({ status: 404, param: 'model', code: 'agent_not_found', error: { message: 'The agent "support" does not exist.' } });
    expect(missing).toMatchObject({ status: 404, param: 'model', code: 'agent_not_found', error: { message: 'The agent "nobody" does not exist.' } });
    for (const path of ['/v1/agents/support', '/v1/agents/nobody']) {
      const res = await get(path, LIMITED_KEY);
      expect(res.status, path).toBe(404);
    }
    const model = await get('/v1/models/support', LIMITED_KEY);
    expect(await model.json()).toMatchObject({ error: { code: 'model_not_found', message: 'The model "support" does not exist.' } });
    const ok = await client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.model).toBe('sales');
  });

  it('rate-limits each key: x-ratelimit headers, then 429 with Retry-After as RateLimitError', async () => {
    herald = await testApp(config({ rateLimit: { requestsPerMinute: 3 } }));
    const first = await get('/v1/models', API_KEY);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
    await get('/v1/models', API_KEY);
    await get('/v1/models', API_KEY);
    const limited = await get('/v1/models', API_KEY);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(await limited.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    // another key has its own budget
    expect((await get('/v1/models', HASHED_KEY)).status).toBe(200);
  });

  it('lists every agent as a model, however many (OpenAI does not page models)', async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({ id: `agent-${String(i).padStart(3, '0')}` }));
    herald = await testApp({ agents: { list: many } });
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    expect((await client.models.list()).data).toHaveLength(130);
    const page = (await (await get('/v1/models?limit=100', API_KEY)).json()) as { data: unknown[]; has_more: boolean };
    expect(page.data).toHaveLength(100);
    expect(page.has_more).toBe(true);
    expect((await get('/v1/agents', API_KEY).then((r) => r.json()) as { data: unknown[] }).data).toHaveLength(20);
  });

  it('answers unknown /v1 paths in the OpenAI error shape', async () => {
    herald = await testApp(config());
    const res = await get('/v1/nothing-here', API_KEY);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
  });
});
