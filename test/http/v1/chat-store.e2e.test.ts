import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

let herald: TestApp;
let client: OpenAI;
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };

async function adminJson(path: string): Promise<any> {
  const res = await herald.request(path, { headers: admin });
  expect(res.status).toBe(200);
  return res.json();
}

const chatSessions = async (): Promise<string[]> => (await adminJson('/admin/sessions?prefix=chat:&limit=100')).data.map((s: { key: string }) => s.key);
const keyUsage = async (): Promise<{ requests: number; totalTokens: number }> => (await adminJson('/admin/usage?by=key')).data.find((r: { group: string }) => r.group === 'test') ?? { requests: 0, totalTokens: 0 };

beforeAll(async () => {
  herald = await testApp({ agents: { list: [{ id: 'support', instructions: 'Be brief.' }] } });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  const form = new FormData();
  form.append('agent_id', 'support');
  form.append('file', new Blob(['# Refunds\n\nRefunds are issued within 14 days. Send the receipt to billing@example.com.']), 'refunds.md');
  expect((await herald.request('/v1/knowledge/upload', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form })).status).toBe(201);
});
afterAll(async () => herald?.stop());

describe('POST /v1/chat/completions with store: false', () => {
  it('answers without keeping the turn, names no conversation, and records the usage', async () => {
    const sessionsBefore = await chatSessions();
    const usageBefore = await keyUsage();
    const { data: completion, response } = await client.chat.completions
      .create({ model: 'support', messages: [{ role: 'user', content: 'How many days for a refund?' }], store: false })
      .withResponse();
    expect(completion.choices[0]!.message.content).toContain('14 days');
    expect(completion).not.toHaveProperty('conversation_id');
    expect(response.headers.get('x-conversation-id')).toBeNull();
    expect(await chatSessions()).toEqual(sessionsBefore);
    const usage = await keyUsage();
    expect(usage.requests).toBe(usageBefore.requests + 1);
    expect(usage.totalTokens - usageBefore.totalTokens).toBe(completion.usage!.total_tokens);
  });

  it('streams without a conversation id on any chunk, and records the usage before the stream ends', async () => {
    const sessionsBefore = await chatSessions();
    const usageBefore = await keyUsage();
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'support', messages: [{ role: 'user', content: 'Where does the receipt go?' }], store: false, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('x-conversation-id')).toBeNull();
    let text = '';
    let total = 0;
    for await (const chunk of stream) {
      expect(chunk).not.toHaveProperty('conversation_id');
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) total = chunk.usage.total_tokens;
    }
    expect(text).toContain('billing@example.com');
    expect(await chatSessions()).toEqual(sessionsBefore);
    const usage = await keyUsage();
    expect(usage.requests).toBe(usageBefore.requests + 1);
    expect(usage.totalTokens - usageBefore.totalTokens).toBe(total);
  });

  it('asks a stored conversation a question without adding to it', async () => {
    const first = (await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'Tell me about refunds' }] })) as OpenAI.ChatCompletion & {
      conversation_id: string;
    };
    const messages = async () => (await adminJson(`/admin/sessions/chat:${first.conversation_id}/messages`)).data.map((m: { content: string }) => m.content);
    const kept = await messages();
    expect(kept).toHaveLength(2);
    const aside = (await client.chat.completions.create({
      model: 'support',
      messages: [{ role: 'user', content: 'Where do I send the receipt?' }],
      conversation_id: first.conversation_id,
      store: false,
    } as never)) as OpenAI.ChatCompletion & { conversation_id?: string };
    expect(aside.choices[0]!.message.content).toContain('billing@example.com');
    // the conversation it read exists, so it is named
    expect(aside.conversation_id).toBe(first.conversation_id);
    expect(await messages()).toEqual(kept);
  });

  it('keeps the turn with store: true, as without the field', async () => {
    const kept = (await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'refunds?' }], store: true })) as OpenAI.ChatCompletion & {
      conversation_id: string;
    };
    expect(kept.conversation_id).toMatch(/^conv_[a-f0-9]{24}$/);
    expect(await chatSessions()).toContain(`chat:${kept.conversation_id}`);
  });

  it('refuses a store that is not a boolean, naming the field', async () => {
    const res = await herald.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', messages: [{ role: 'user', content: 'hi' }], store: 'no' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param: 'store' });
  });
});
