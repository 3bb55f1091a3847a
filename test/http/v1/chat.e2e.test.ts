import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

let herald: TestApp;
let client: OpenAI;

const agents = [
  { id: 'support', name: 'Support', description: 'Answers customer questions', instructions: 'Be brief.' },
  { id: 'sales', name: 'Sales' },
  { id: 'ops', name: 'Ops' },
];

async function upload(agentId: string, filename: string, text: string) {
  const form = new FormData();
  form.append('agent_id', agentId);
  form.append('file', new Blob([text]), filename);
  const res = await herald.request(`/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

beforeAll(async () => {
  herald = await testApp({ agents: { list: agents } });
  client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
  await upload('support', 'refunds.md', '# Refunds\n\nRefunds are issued within 14 days of purchase. Send the receipt to billing@example.com to get your money back.');
});
afterAll(async () => herald?.stop());

describe('GET /v1/models and /v1/agents', () => {
  it('lists the agents as models for the openai client', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(['support', 'sales', 'ops']);
    expect(page.data[0]).toMatchObject({ id: 'support', object: 'model', owned_by: 'herald' });
    const one = await client.models.retrieve('sales');
    expect(one.id).toBe('sales');
  });

  it('lists agents with their knowledge document count and paginates', async () => {
    const auth = { authorization: `Bearer ${API_KEY}` };
    const getJson = async (p: string): Promise<any> => (await herald.request(`${p}`, { headers: auth })).json();
    const all = await getJson(`/v1/agents`);
    expect(all).toMatchObject({ object: 'list', first_id: 'support', last_id: 'ops', has_more: false });
    expect(all.data[0]).toMatchObject({
      id: 'support',
      object: 'agent',
      owned_by: 'herald',
      name: 'Support',
      description: 'Answers customer questions',
      model: 'embedded/extractive',
      knowledge_document_count: 1,
      retrieval: 'bm25',
    });
    expect(typeof all.data[0].created).toBe('number');
    const first = await getJson(`/v1/agents?limit=2`);
    expect(first.data.map((a: { id: string }) => a.id)).toEqual(['support', 'sales']);
    expect(first.has_more).toBe(true);
    const next = await getJson(`/v1/agents?limit=2&after=${first.last_id}`);
    expect(next.data.map((a: { id: string }) => a.id)).toEqual(['ops']);
    expect(next.has_more).toBe(false);
    const before = await getJson(`/v1/agents?before=ops`);
    expect(before.data.map((a: { id: string }) => a.id)).toEqual(['support', 'sales']);
    const desc = await getJson(`/v1/agents?order=desc&limit=1`);
    expect(desc.data.map((a: { id: string }) => a.id)).toEqual(['ops']);
    const bad = await herald.request(`/v1/agents?limit=0`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param: 'limit' });
    const one = await getJson(`/v1/agents/sales`);
    expect(one).toMatchObject({ id: 'sales', object: 'agent', knowledge_document_count: 0 });
    const missing = await herald.request(`/v1/agents/nobody`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('agent_not_found');
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers from the agent knowledge with citations and a conversation id', async () => {
    const completion = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'How many days do I have for a refund?' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('support');
    const text = completion.choices[0]!.message.content!;
    expect(text).toContain('Refunds are issued within 14 days of purchase.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
    const extra = completion as unknown as { conversation_id: string; citations: { index: number; filename: string; document_id: string; chunk_id: string; score: number; content: string }[] };
    expect(extra.conversation_id).toMatch(/^conv_/);
    expect(extra.citations[0]).toMatchObject({ index: 1, filename: 'refunds.md' });
    expect(extra.citations[0]!.content).toContain('14 days');
    // the same passages in OpenAI's own shape, for clients that ignore the extension
    const annotation = completion.choices[0]!.message.annotations![0]!;
    expect(annotation.type).toBe('url_citation');
    expect(annotation.url_citation).toMatchObject({ url: `${herald.origin}/v1/knowledge/${extra.citations[0]!.document_id}`, title: 'refunds.md' });
    expect(text.slice(annotation.url_citation.start_index, annotation.url_citation.end_index)).toBe('[1]');
  });

  it('says plainly when it knows nothing on the subject', async () => {
    const completion = await client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'What is the capital of Peru?' }] });
    expect(completion.choices[0]!.message.content).toMatch(/don't have anything on that/);
    expect((completion as unknown as { citations: unknown[] }).citations).toEqual([]);
  });

  it('streams chat.completion.chunk events ending with usage and citations', async () => {
    const stream = await client.chat.completions.create({
      model: 'support',
      messages: [{ role: 'user', content: 'refund receipt' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('billing@example.com');
    const finish = chunks.find((c) => c.choices[0]?.finish_reason === 'stop')!;
    expect((finish as unknown as { citations: { filename: string }[] }).citations[0]!.filename).toBe('refunds.md');
    const cited = (finish.choices[0]!.delta as { annotations?: { type: string; url_citation: { title: string } }[] }).annotations!;
    expect(cited[0]).toMatchObject({ type: 'url_citation', url_citation: { title: 'refunds.md' } });
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('sends SSE with X-Accel-Buffering: no and ends with [DONE]', async () => {
    const res = await herald.request(`/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'support', messages: [{ role: 'user', content: 'refund' }], stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await res.text();
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('keeps a conversation on the server and shows it in the admin API', async () => {
    const first = await client.chat.completions.create({
      model: 'support',
      messages: [
        { role: 'system', content: 'Answer in English.' },
        { role: 'user', content: 'Tell me about refunds' },
      ],
    });
    const conversationId = (first as unknown as { conversation_id: string }).conversation_id;
    const second = await client.chat.completions.create({
      model: 'support',
      messages: [{ role: 'user', content: 'Where do I send the receipt?' }],
      conversation_id: conversationId,
    } as never);
    expect((second as unknown as { conversation_id: string }).conversation_id).toBe(conversationId);
    expect(second.choices[0]!.message.content).toContain('billing@example.com');

    const res = await herald.request(`/admin/sessions/chat:${conversationId}/messages`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const { data } = (await res.json()) as { data: { role: string; content: string }[] };
    expect(data.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(data[3]!.content).toBe('Where do I send the receipt?');

    // a conversation belongs to its agent
    await expect(
      client.chat.completions.create({ model: 'sales', messages: [{ role: 'user', content: 'hi' }], conversation_id: conversationId } as never),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('keeps conversations across a restart', async () => {
    const first = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'refund?' }] });
    const conversationId = (first as unknown as { conversation_id: string }).conversation_id;
    herald = await herald.restart();
    client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const again = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'and the receipt?' }], conversation_id: conversationId } as never);
    expect(again.choices[0]!.message.content).toContain('receipt');
  });

  it('reports errors as the client typed exceptions', async () => {
    const err = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
    const notFound = await err(client.chat.completions.create({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] }));
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    expect(notFound).toMatchObject({ status: 404, code: 'agent_not_found', param: 'model' });

    const unknownConversation = await err(
      client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }], conversation_id: 'conv_000000000000000000000000' } as never),
    );
    expect(unknownConversation).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknownConversation).toMatchObject({ code: 'conversation_not_found', param: 'conversation_id' });

    const tools = await err(
      client.chat.completions.create({
        model: 'support',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'x', parameters: {} } }],
      }),
    );
    expect(tools).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tools).toMatchObject({ status: 400, param: 'tools' });

    const n = await err(client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }], n: 2 }));
    expect(n).toBeInstanceOf(OpenAI.BadRequestError);
    expect(n).toMatchObject({ param: 'n' });

    const badTemperature = await err(client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }], temperature: 5 }));
    expect(badTemperature).toMatchObject({ status: 400, param: 'temperature' });

    const noMessages = await err(client.chat.completions.create({ model: 'support', messages: [] }));
    expect(noMessages).toMatchObject({ status: 400, param: 'messages' });

    const badKey = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: 'sk-wrong-key-0000000000', maxRetries: 0 });
    const auth = await err(badKey.models.list());
    expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(auth).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('honours max_tokens and passes harmless fields over', async () => {
    const completion = await client.chat.completions.create({
      model: 'support',
      messages: [{ role: 'user', content: 'refunds' }],
      max_tokens: 3,
      top_p: 0.5,
      seed: 1,
      user: 'u-1',
      metadata: { ticket: '42' },
    });
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.choices[0]!.message.content!.split(/\s+/).length).toBe(3);
    const stream = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'refunds' }], max_tokens: 3, stream: true });
    const finished = [];
    for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) finished.push(chunk.choices[0].finish_reason);
    expect(finished).toEqual(['length']);
  });
});
