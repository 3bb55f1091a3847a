import { describe, expect, it } from 'vitest';
import { extractiveAnswer } from '../../src/knowledge/searching/extractive-answer.js';
import { EmbeddedModel, HEARTBEAT_OK } from '../../src/models/embedded-model.js';
import { isModelAllowed, resolveModelRef } from '../../src/models/model-refs.js';
import type { ModelRequest } from '../../src/models/provider.js';

const model = new EmbeddedModel(extractiveAnswer);
const base: ModelRequest = { model: 'extractive', messages: [{ role: 'user', content: 'x' }], purpose: 'run' };

describe('embedded model', () => {
  it('answers HEARTBEAT_OK on a heartbeat with nothing pending', async () => {
    expect((await model.complete({ ...base, purpose: 'heartbeat', events: [] })).text).toBe(HEARTBEAT_OK);
  });

  it('digests pending events on a heartbeat', async () => {
    const { text } = await model.complete({ ...base, purpose: 'heartbeat', events: ['Deploy finished', 'Disk at 91%'] });
    expect(text).toBe('2 new events:\n- Deploy finished\n- Disk at 91%');
  });

  it('acknowledges a run message honestly, the same way every time', async () => {
    const first = await model.complete({ ...base, question: 'Summarise the day' });
    const second = await model.complete({ ...base, question: 'Summarise the day' });
    expect(first).toEqual(second);
    expect(first.text).toContain('"Summarise the day"');
    expect(first.text).toMatch(/cannot act on this/);
  });

  it('says plainly when chat has no knowledge to answer from, and quotes it when it has', async () => {
    expect((await model.complete({ ...base, purpose: 'chat' })).text).toMatch(/don't have anything/);
    const { text } = await model.complete({
      ...base,
      purpose: 'chat',
      knowledge: [{ filename: 'faq.md', score: 1, content: 'Refunds take 5 days.' }],
    });
    expect(text).toContain('Refunds take 5 days.');
    expect(text).toContain('faq.md');
  });

  it('counts usage in whitespace words, any of JavaScript\'s spaces between them', async () => {
    const prompt = '  Deploy\tfinished\n\nat 10:00\u00a0UTC\u3000(prod)\u2028é \r\n';
    const { usage, text } = await model.complete({ ...base, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: prompt }] });
    expect(usage).toEqual({ prompt_tokens: 2 + prompt.match(/\S+/g)!.length, completion_tokens: text.match(/\S+/g)!.length, total_tokens: expect.any(Number) });
    expect(usage!.prompt_tokens).toBe(9);
  });

  it('counts a run acknowledgement\'s words as its text has them, whatever the question', async () => {
    const questions = ['', '   ', 'one', ' padded ', 'a  b\tc\n\nd', '\u00a0spaced\u2003out\u3000', '"quoted"', 'word '.repeat(100), `${'x'.repeat(278)} tail`, `${'y'.repeat(277)}  z`];
    for (const question of [...questions, undefined]) {
      const { text, usage } = await model.complete({ ...base, question });
      expect(usage!.completion_tokens, JSON.stringify(question?.slice(0, 20))).toBe(text.match(/\S+/g)!.length);
    }
  });

  it('streams the same text it completes', async () => {
    let streamed = '';
    for await (const event of model.stream({ ...base, question: 'hello' })) if (event.type === 'delta') streamed += event.text;
    expect(streamed).toBe((await model.complete({ ...base, question: 'hello' })).text);
  });
});

describe('model refs', () => {
  const config = {
    models: { providers: { local: { api: 'openai' as const, baseUrl: 'http://127.0.0.1/v1' } }, aliases: { fast: 'local/llama3' }, prices: {}, input: {} },
    agents: {
      defaults: { model: { primary: 'embedded/extractive', fallbacks: [] }, models: { refs: ['fast', 'embedded/extractive'], aliases: {} }, timeoutSeconds: 600, maxConcurrent: 4, leaseMs: 30000, historyLimit: 50, budgetReserveTokens: 1024 },
      list: [{ id: 'main' }],
    },
  };
  it('resolves <provider>/<model> and aliases, and refuses unknown providers', () => {
    expect(resolveModelRef('local/qwen', config)).toEqual({ provider: 'local', model: 'qwen', ref: 'local/qwen' });
    expect(resolveModelRef('fast', config)).toEqual({ provider: 'local', model: 'llama3', ref: 'local/llama3' });
    expect(resolveModelRef('embedded/extractive', config)?.provider).toBe('embedded');
    expect(resolveModelRef('cloud/gpt', config)).toBeUndefined();
    expect(resolveModelRef('noslash', config)).toBeUndefined();
  });
  it('checks the allowlist by resolved ref', () => {
    expect(isModelAllowed('fast', config)).toBe(true);
    expect(isModelAllowed('local/llama3', config)).toBe(true);
    expect(isModelAllowed('local/qwen', config)).toBe(false);
  });
});
