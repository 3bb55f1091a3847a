import { describe, expect, it } from 'vitest';
import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { encodingFor, estimatePromptTokens, estimateTokens } from '../../src/models/token-estimate.js';

describe('token estimates', () => {
  it('picks the encoding OpenAI documents for the model', () => {
    expect(['gpt-4o', 'openai/gpt-4.1-mini', 'gpt-5', 'o3-mini', 'llama3.1:8b'].map(encodingFor)).toEqual(Array(5).fill('o200k_base'));
    expect(['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo', 'fake/text-embedding-3-small'].map(encodingFor)).toEqual(Array(4).fill('cl100k_base'));
  });

  it('counts with the tokenizer, never below the words', async () => {
    const english = 'The deploy of the billing service finished at noon, and every health check passed since.';
    expect(await estimateTokens(english, 'gpt-4o')).toBe(Math.max(o200k(english), english.split(' ').length));
    const json = '{"path":"/srv/app/config/production.yaml","mode":"0644"}';
    expect(await estimateTokens(json, 'gpt-4')).toBe(cl100k(json));
    expect(await estimateTokens('', 'gpt-4o')).toBe(0);
  });

  it('a prompt: every message and tool call, with the chat format around them', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are terse.' },
      { role: 'assistant' as const, content: '', tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'fs__read_file', arguments: '{"path":"/tmp/a.txt"}' } }] },
    ];
    const contents = o200k('You are terse.') + o200k('call_1 fs__read_file {"path":"/tmp/a.txt"}');
    expect(await estimatePromptTokens(messages, 'gpt-4o')).toBeGreaterThan(contents);
  });
});
