import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { completeWithFallbacks } from '../../src/models/complete-with-fallbacks.js';
import { extractiveAnswer } from '../../src/knowledge/searching/extractive-answer.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import type { FakeServer } from '../helpers/fake-server.js';
import { loadConfigValue } from '../helpers/builtins.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';
import { startFakeOpenAI } from './fake-openai.js';

/** Client tools and structured output go to whichever model of the chain answers; one that cannot take them is passed over. */
let fake: FakeServer | undefined;
afterEach(async () => fake?.close());

describe('fallbacks with client tools', () => {
  it('passes over the embedded model and sends the tools to the OpenAI-compatible fallback', async () => {
    fake = await startFakeOpenAI('from the fallback');
    const { config } = await loadConfigValue(
      baseConfig({
        models: { providers: { up: { api: 'openai', baseUrl: `${fake.url}/v1` } } },
        agents: { defaults: { model: { primary: 'embedded/extractive', fallbacks: ['up/gpt-test'] } } },
      }),
      path.join(tempDir(), 'herald.json'),
    );
    const models = new ModelRegistry(config, extractiveAnswer);
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const answered = await completeWithFallbacks(['embedded/extractive', 'up/gpt-test'], models, { messages, purpose: 'chat', extra: { tools } }, {});
    expect(answered).toMatchObject({ text: 'from the fallback', ref: 'up/gpt-test' });
    expect(answered.failures).toEqual([{ ref: 'embedded/extractive', provider: 'embedded', error: 'the model takes no client tools or structured output' }]);
    expect(fake.requests[0]!.json.tools).toEqual(tools);
    // without tools the embedded model answers as before
    const plain = await completeWithFallbacks(['embedded/extractive', 'up/gpt-test'], models, { messages, purpose: 'chat' }, {});
    expect(plain.ref).toBe('embedded/extractive');
  });
});

describe('models answering in-process', () => {
  it('are the embedded ones only: a chain with a model over the network, or an unknown one, is not', async () => {
    const { config } = await loadConfigValue(
      baseConfig({ models: { providers: { up: { api: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } } } }),
      path.join(tempDir(), 'herald.json'),
    );
    const models = new ModelRegistry(config, extractiveAnswer);
    expect(models.answersInProcess(['embedded/extractive'])).toBe(true);
    expect(models.answersInProcess(['embedded/extractive', 'up/gpt-test'])).toBe(false);
    expect(models.answersInProcess(['nowhere/model'])).toBe(false);
  });
});
