import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSIONS, EMBEDDINGS_KEY, fakeEmbedding, startFakeEmbeddings } from '../../helpers/fake-embeddings.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { API_KEY, baseConfig, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';

let fake: FakeServer;
let herald: TestApp | undefined;
beforeAll(async () => {
  fake = await startFakeEmbeddings('text-embedding-3-small');
});
afterAll(() => fake?.close());
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
  fake.requests.length = 0;
});

const config = (platform: Record<string, unknown> = { embeddings: { models: ['fake/text-embedding-3-small'] } }) =>
  baseConfig({
    models: { providers: { fake: { api: 'openai', baseUrl: `${fake.url}/v1`, apiKey: EMBEDDINGS_KEY } }, aliases: { embed: 'fake/text-embedding-3-small' } },
    platform,
  });

const post = (body: unknown, key = API_KEY) =>
  herald!.request(`/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('POST /v1/embeddings', () => {
  it('answers the official client (base64, its default) by the bare model name, the ref or an alias, with the provider\'s usage', async () => {
    herald = await testApp(config());
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const one = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'send the sofa back' });
    expect(one.object).toBe('list');
    expect(one.model).toBe('text-embedding-3-small');
    expect(one.data).toHaveLength(1);
    // the client asked for base64 and decoded it: float32 of the provider's floats
    expect(one.data[0]!.embedding).toEqual(Array.from(Float32Array.from(fakeEmbedding('send the sofa back'))));
    expect(one.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    // what reached the provider: its own model name, floats, the key of models.providers
    expect(fake.requests[0]!.json).toEqual({ model: 'text-embedding-3-small', input: ['send the sofa back'], encoding_format: 'float' });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${EMBEDDINGS_KEY}`);

    const many = await client.embeddings.create({ model: 'fake/text-embedding-3-small', input: ['a couch', 'a chair'], encoding_format: 'float', dimensions: 8, user: 'u-1' });
    expect(many.data.map((d) => d.index)).toEqual([0, 1]);
    expect(many.data.every((d) => d.embedding.length === 8)).toBe(true);
    expect(fake.requests[1]!.json).toEqual({ model: 'text-embedding-3-small', input: ['a couch', 'a chair'], encoding_format: 'float', dimensions: 8, user: 'u-1' });
    const aliased = await client.embeddings.create({ model: 'embed', input: 'x' });
    expect(aliased.data[0]!.embedding).toHaveLength(DIMENSIONS);
  });

  it('a provider that counts nothing: the inputs counted by the model\'s tokenizer (cl100k_base for text-embedding-3), never fewer, marked estimated', async () => {
    const silent = await startFakeEmbeddings('text-embedding-3-small', { withoutUsage: true });
    try {
      herald = await testApp(baseConfig({ models: { providers: { fake: { api: 'openai', baseUrl: `${silent.url}/v1`, apiKey: EMBEDDINGS_KEY } } }, platform: { embeddings: { models: ['fake/text-embedding-3-small'] } } }));
      const input = ['Refund order #48213: the customer\'s sofa arrived damaged.', 'naïve café — déjà vu'];
      const res = await post({ model: 'text-embedding-3-small', input });
      expect(res.status).toBe(200);
      const { usage } = (await res.json()) as { usage: { prompt_tokens: number; total_tokens: number } };
      const real = input.reduce((n, s) => n + countTokens(s), 0);
      expect(real).toBeGreaterThan(input.join(' ').split(/\s+/).length);
      expect(usage.prompt_tokens).toBeGreaterThanOrEqual(real);
      const row = await eventually(async () => (await herald!.gateway.store.usage.report({ by: 'key' }))[0]);
      expect(row).toMatchObject({ promptTokens: usage.prompt_tokens, estimatedTokens: usage.prompt_tokens });
    } finally {
      await silent.close();
    }
  });

  it('serves the knowledge embeddings model too; an unknown model, or none configured, is 404 model_not_found', async () => {
    herald = await testApp(config({ knowledge: { embeddings: { model: 'fake/text-embedding-3-small' } } }));
    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    expect((await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' })).data).toHaveLength(1);
    const agents = (await (await herald.request(`/v1/agents`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as { data: { retrieval: string }[] };
    expect(agents.data.map((a) => a.retrieval)).toEqual(['hybrid']);
    const unknown = await client.embeddings.create({ model: 'text-embedding-ada-002', input: 'x' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown).toMatchObject({ status: 404, param: 'model', code: 'model_not_found', error: { message: 'The model "text-embedding-ada-002" is not an embeddings model of this herald (it serves "fake/text-embedding-3-small").' } });
    await herald.stop();
    herald = await testApp({});
    const none = await post({ model: 'text-embedding-3-small', input: 'x' });
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({
      error: { message: 'The model "text-embedding-3-small" does not exist: no embeddings model is configured (platform.embeddings.models).', type: 'not_found_error', param: 'model', code: 'model_not_found' },
    });
  });

  it('names the field at fault: token arrays, empty inputs, too many, a bad format or dimensions, a dimensions the model refuses', async () => {
    herald = await testApp(config());
    const model = 'text-embedding-3-small';
    const cases: [unknown, number, string, string][] = [
      [{ model, input: [1, 2, 3] }, 400, 'input', 'input: token arrays are not supported; send the text as a string or an array of strings'],
      [{ model, input: [[1, 2], [3]] }, 400, 'input', 'input: token arrays are not supported; send the text as a string or an array of strings'],
      [{ model, input: '' }, 400, 'input', 'input: input cannot be an empty string'],
      [{ model, input: ['ok', ''] }, 400, 'input[1]', 'input[1]: input cannot be an empty string'],
      [{ model, input: [] }, 400, 'input', 'input: input cannot be an empty array'],
      [{ model, input: Array.from({ length: 2049 }, () => 'x') }, 400, 'input', 'input: at most 2048 inputs per request'],
      [{ input: 'x' }, 400, 'model', 'model: Invalid input: expected string, received undefined'],
      [{ model, input: 'x', encoding_format: 'int8' }, 400, 'encoding_format', 'encoding_format: Invalid option: expected one of "float"|"base64"'],
      [{ model, input: 'x', dimensions: 0 }, 400, 'dimensions', 'dimensions: Too small: expected number to be >0'],
      [{ model, input: 'x', dimensions: 4096 }, 400, 'dimensions', `fake/text-embedding-3-small: Invalid value for 'dimensions' = 4096. Must be between 1 and ${DIMENSIONS}.`],
    ];
    for (const [body, status, param, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(((await res.json()) as { error: unknown }).error, JSON.stringify(body).slice(0, 80)).toMatchObject({ param, message });
    }
    // only the last reached the provider
    expect(fake.requests).toHaveLength(1);
    expect((await post({ model, input: 'x' }, 'sk-wrong-0000000000000000')).status).toBe(401);
  });

  it('answers 502 naming the provider when it fails', async () => {
    // OpenAI's documented server error body (https://platform.openai.com/docs/guides/error-codes)
    const failing = await startFakeServer(() => ({ status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } } }));
    try {
      herald = await testApp({ models: { providers: { down: { api: 'openai', baseUrl: `${failing.url}/v1` } } }, platform: { embeddings: { models: ['down/text-embedding-3-small'] } } });
      const res = await post({ model: 'text-embedding-3-small', input: 'x' });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'upstream_error', message: 'embeddings from down/text-embedding-3-small failed: 500 The server had an error while processing your request.' });
    } finally {
      await failing.close();
    }
  });
});
