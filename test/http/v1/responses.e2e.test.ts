import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

let herald: TestApp;
let client: OpenAI;

const agents = [
  { id: 'support', name: 'Support', instructions: 'Be brief.' },
  { id: 'sales', name: 'Sales' },
];

async function upload(agentId: string, filename: string, text: string) {
  const form = new FormData();
  form.append('agent_id', agentId);
  form.append('file', new Blob([text]), filename);
  const res = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

let refundsDoc: string;

beforeAll(async () => {
  herald = await testApp({ agents: { list: agents }, platform: { apiKeys: [{ name: 'test', key: API_KEY }, { name: 'sales-only', key: 'sk-sales-0123456789abcdef0123', agents: ['sales'] }] } },
  );
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  refundsDoc = (await upload('support', 'refunds.md', '# Refunds\n\nRefunds are issued within 14 days of purchase. Send the receipt to billing@example.com to get your money back.')).id;
});
afterAll(async () => herald?.stop());

describe('POST /v1/responses with the official client', () => {
  it('answers a string input with output_text, file_citation annotations and usage', async () => {
    const response = await client.responses.create({ model: 'support', input: 'How many days do I have for a refund?', metadata: { ticket: 'T-1' } });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'support', store: true, metadata: { ticket: 'T-1' }, previous_response_id: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toContain('Refunds are issued within 14 days of purchase.');
    const message = response.output[0]!;
    expect(message.type).toBe('message');
    const part = (message as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.annotations[0]).toMatchObject({ type: 'file_citation', file_id: refundsDoc, filename: 'refunds.md' });
    const index = (part.annotations[0] as { index: number }).index;
    expect(part.text.slice(index, index + 3)).toBe('[1]');
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
  });

  it('takes a list of message items with input_text and instructions', async () => {
    const response = await client.responses.create({
      model: 'sales',
      instructions: 'Answer in one line.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is the capital of Peru?' }] }],
    });
    expect(response.instructions).toBe('Answer in one line.');
    expect(response.output_text).toMatch(/don't have anything on that/);
  });

  it('continues a conversation by previous_response_id, across a restart, and GET/DELETE it', async () => {
    const first = await client.responses.create({ model: 'support', input: 'refund receipt' });
    herald = await herald.restart();
    client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const fetched = await client.responses.retrieve(first.id);
    expect(fetched.output_text).toBe(first.output_text);
    const second = await client.responses.create({ model: 'support', input: 'and where do I send it?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.status).toBe('completed');

    const deleted = await client.responses.delete(first.id);
    expect(deleted).toMatchObject({ id: first.id, object: "response.deleted", deleted: true });
    await expect(client.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
    await expect(client.responses.create({ model: 'support', input: 'again', previous_response_id: first.id })).rejects.toMatchObject({
      status: 404,
      code: 'response_not_found',
      param: 'previous_response_id',
    });
  });

  it('does not keep a response asked with store: false', async () => {
    const response = await client.responses.create({ model: 'support', input: 'refund', store: false });
    expect(response).toMatchObject({ store: false });
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
  });

  it('honours max_output_tokens and refuses what it cannot do, in OpenAI error shape', async () => {
    const short = await client.responses.create({ model: 'support', input: 'How many days do I have for a refund?', max_output_tokens: 3 });
    expect(short.output_text.split(/\s+/).length).toBe(3);
    await expect(client.responses.create({ model: 'nobody', input: 'hi' })).rejects.toMatchObject({ status: 404, code: 'agent_not_found', param: 'model' });
    await expect(client.responses.create({ model: 'support', input: [] })).rejects.toMatchObject({ status: 400, param: 'input' });
    await expect(
      client.responses.create({ model: 'support', input: 'hi', tools: [{ type: 'function', name: 'f', parameters: {}, strict: false }] }),
    ).rejects.toMatchObject({ status: 400, param: 'tools' });
    const salesOnly = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: 'sk-sales-0123456789abcdef0123', maxRetries: 0 });
    const theirs = await client.responses.create({ model: 'support', input: 'refund' });
    await expect(salesOnly.responses.retrieve(theirs.id)).rejects.toMatchObject({ status: 404 });
  });

  it('streams the typed events in order with sequence numbers', async () => {
    const stream = client.responses.stream({ model: 'support', input: 'refund receipt' });
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    const types = [...new Set(events.map((e) => e.type))];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.annotation.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as unknown as { delta: string }).delta).join('');
    expect(final.output_text).toBe(deltas);
    expect(final.output_text).toContain('billing@example.com');
    expect(final.usage!.output_tokens).toBeGreaterThan(0);
    const stored = await client.responses.retrieve(final.id);
    expect(stored.output_text).toBe(final.output_text);
  });

  it('sends named SSE events without [DONE]', async () => {
    const res = await herald.request(`/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', input: 'refund', stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = await res.text();
    expect(body.startsWith('event: response.created\ndata: ')).toBe(true);
    expect(body).not.toContain('[DONE]');
  });
});

describe('the AI SDK default OpenAI provider (Responses API)', () => {
  const provider = () => createOpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY });

  it('generateText answers with the knowledge as sources', async () => {
    const result = await generateText({ model: provider()('support'), prompt: 'How many days do I have for a refund?' });
    expect(result.text).toContain('14 days');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.sources.map((s) => (s as { title?: string; filename?: string }).filename ?? (s as { title?: string }).title)).toContain('refunds.md');
  });

  it('streamText streams the answer', async () => {
    const result = streamText({ model: provider()('support'), system: 'Be kind.', prompt: 'refund receipt' });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toContain('billing@example.com');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });
});
