import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, baseConfig, eventually, hookHeaders, startHerald, type RunningHerald } from '../../helpers/start-herald.js';
import { gate, startFakeUpstream } from './fake-openai-upstream.js';

let herald: RunningHerald;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  herald = await startHerald(
    baseConfig({
      models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
      agents: { list: [{ id: 'analyst', instructions: 'You are Analyst, a careful assistant.', model: 'up/gpt-test' }] },
      platform: { streamPingMs: 20 },
    }),
  );
  client = new OpenAI({ baseURL: `${herald.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
  const form = new FormData();
  form.append('agent_id', 'analyst');
  form.append('file', new Blob(['The quarterly revenue target for the Nordic region is 4.2 million euros.']), 'targets.txt');
  const res = await fetch(`${herald.url}/v1/knowledge/upload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

/** reads an SSE body until `predicate` holds for the text so far */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, sofar: { text: string }, predicate: (text: string) => boolean) {
  const decoder = new TextDecoder();
  while (!predicate(sofar.text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before the expected text; got:\n${sofar.text}`);
    sofar.text += decoder.decode(value, { stream: true });
  }
}

describe('an openai-kind agent', () => {
  it('sends instructions, retrieved knowledge, history and parameters to the upstream', async () => {
    upstream.reply({ text: 'The target is 4.2 million euros [1].' });
    const first = await client.chat.completions.create({
      model: 'analyst',
      messages: [{ role: 'user', content: 'What is the revenue target for the Nordic region?' }],
      temperature: 0.2,
      max_tokens: 50,
      user: 'user-7',
    });
    expect(first.choices[0]!.message.content).toBe('The target is 4.2 million euros [1].');
    expect(first.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer upstream-secret-key');
    expect(sent.json).toMatchObject({ model: 'gpt-test', temperature: 0.2, max_tokens: 50, user: 'user-7' });
    expect(sent.json.messages[0].role).toBe('system');
    expect(sent.json.messages[0].content).toContain('You are Analyst');
    expect(sent.json.messages[0].content).toContain('4.2 million euros');
    expect(sent.json.messages[0].content).toContain('targets.txt');
    expect(sent.json.messages.at(-1)).toEqual({ role: 'user', content: 'What is the revenue target for the Nordic region?' });

    const conversationId = (first as unknown as { conversation_id: string }).conversation_id;
    upstream.reply({ text: 'Yes.' });
    await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'Is that per quarter?' }], conversation_id: conversationId } as never);
    const followUp = upstream.requests.at(-1)!.json.messages.slice(1);
    expect(followUp).toEqual([
      { role: 'user', content: 'What is the revenue target for the Nordic region?' },
      { role: 'assistant', content: 'The target is 4.2 million euros [1].' },
      { role: 'user', content: 'Is that per quarter?' },
    ]);
  });

  it('passes the upstream stream through as it arrives, with pings while it waits', async () => {
    const first = gate();
    const second = gate();
    upstream.stream({ deltas: ['Four', ' point', ' two'], before: (i) => (i === 0 ? first.opened : i === 1 ? second.opened : Promise.resolve()) });
    const res = await fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'analyst', messages: [{ role: 'user', content: 'Nordic revenue target?' }], stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const reader = res.body!.getReader();
    const seen = { text: '' };
    // the upstream holds its first token: herald keeps the connection alive with comments
    // (the role chunk goes out once the upstream has answered its headers: on a busy machine a ping may come first)
    await readUntil(reader, seen, (t) => t.includes(': ping') && t.includes('"role":"assistant"'));
    expect(seen.text).not.toContain('"content":"Four"');
    first.open();
    // the first delta reaches the client while the upstream still holds the second
    await readUntil(reader, seen, (t) => t.includes('"content":"Four"'));
    expect(seen.text).not.toContain(' point');
    second.open();
    await readUntil(reader, seen, (t) => t.includes('data: [DONE]'));
    expect(seen.text).toContain('"content":" two"');
    expect(seen.text).toMatch(/"finish_reason":"stop".*"citations":\[\{"index":1/);
    expect(upstream.requests.at(-1)!.json.stream).toBe(true);
  });

  it('streams through the openai client and stores the streamed answer', async () => {
    upstream.stream({ deltas: ['A', 'B', 'C'] });
    const stream = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'letters?' }], stream: true });
    let text = '';
    let conversationId = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      conversationId = (chunk as unknown as { conversation_id: string }).conversation_id;
    }
    expect(text).toBe('ABC');
    upstream.stream({ deltas: ['cut'], finish: 'length' });
    const cut = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'long?' }], stream: true, max_tokens: 1 });
    const reasons: (string | null)[] = [];
    for await (const chunk of cut) if (chunk.choices[0]) reasons.push(chunk.choices[0].finish_reason);
    // the upstream's own finish_reason reaches the client
    expect(reasons.at(-1)).toBe('length');
    const res = await fetch(`${herald.url}/admin/sessions/chat:${conversationId}/messages`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const { data } = (await res.json()) as { data: { role: string; content: string }[] };
    expect(data.map((m) => [m.role, m.content])).toEqual([
      ['user', 'letters?'],
      ['assistant', 'ABC'],
    ]);
  });

  it('ends a stream that breaks upstream with one error frame', async () => {
    upstream.stream({ deltas: ['partial', ' never'], breakAfter: 1 });
    const res = await fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'analyst', messages: [{ role: 'user', content: 'break please' }], stream: true }),
    });
    const text = await res.text();
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: '));
    const last = JSON.parse(frames.at(-1)!.slice(6));
    expect(last.error).toMatchObject({ type: 'server_error', code: 'upstream_error' });
    expect(text).toContain('"content":"partial"');
    expect(text).not.toContain('[DONE]');

    upstream.stream({ deltas: ['x', 'y'], breakAfter: 1 });
    const stream = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'again' }], stream: true });
    await expect((async () => {
      for await (const _ of stream) void _;
    })()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('turns an upstream failure into 502 without its body', async () => {
    upstream.reply({ status: 500, text: '' });
    const error = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
    expect((error as Error).message).not.toContain('upstream exploded');
    expect(herald.rawLogs()).not.toContain('upstream exploded');
    expect(herald.rawLogs()).not.toContain('upstream-secret-key');
  });

  it('gives a hook agent run the passages of its knowledge base that match the message', async () => {
    upstream.reply({ text: 'Noted: 4.2 million euros.' });
    const before = upstream.requests.length;
    const res = await fetch(`${herald.url}/hooks/agent`, {
      method: 'POST',
      headers: hookHeaders(),
      body: JSON.stringify({ message: 'CRM update: the Nordic region revenue target changed?', deliver: false }),
    });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    await eventually(async () => {
      const run = (await (await fetch(`${herald.url}/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { status: string };
      return run.status === 'succeeded';
    });
    const sent = upstream.requests.slice(before).find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.json.messages[0].content).toContain('4.2 million euros');
    expect(sent.json.messages.at(-1).content).toContain('<<<EXTERNAL_UNTRUSTED_CONTENT');
    // the run's detail shows the prompt the model got, to the character (its marker id included)
    const detail = (await (await fetch(`${herald.url}/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { prompt: string };
    expect(detail.prompt).toBe(sent.json.messages.at(-1).content);
  });
});
