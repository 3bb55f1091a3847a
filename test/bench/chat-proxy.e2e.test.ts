import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../bench/child-server.js';

// The chat benchmark's floor must make herald's two hops and hand the answer back whole, or what
// it says herald's own share is means nothing: this pins it to the upstream's answers.
const KEY = 'sk-proxy-0123456789abcdef';
let upstream: ChildServer;
let proxy: ChildServer;

beforeAll(async () => {
  upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.resolve('bench/chat-upstream.ts')] });
  proxy = await startChildServer({ name: 'proxy', args: ['--import', 'tsx', path.resolve('bench/chat-proxy.ts'), upstream.url, KEY] });
});
afterAll(async () => {
  await proxy?.stop();
  await upstream?.stop();
});

const complete = (body: unknown, key = KEY) =>
  fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('bench chat proxy', () => {
  it("passes a completion and a stream through as the upstream answered them, and refuses a wrong key", async () => {
    const plain = await complete({ model: 'agent', messages: [{ role: 'user', content: 'Hi' }] });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'fine, thanks' } }] });

    const streamed = await complete({ model: 'agent', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const text = await streamed.text();
    const deltas = text.split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '');
    expect(deltas.join('')).toBe('fine, thanks');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);

    expect((await complete({ model: 'agent', messages: [] }, 'sk-wrong-0123456789abcdef')).status).toBe(401);
  });
});
