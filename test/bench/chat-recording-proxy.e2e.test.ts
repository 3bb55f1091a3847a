import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../bench/child-server.js';

// The chat benchmark's second floor must keep a completion's records before it answers, or herald's
// figure against it says nothing about what keeping them costs: this pins what it stores, and when.
const KEY = 'sk-recording-0123456789abcdef';
let upstream: ChildServer;
let proxy: ChildServer;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recording-proxy-'));
  upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.resolve('bench/chat-upstream.ts')] });
  proxy = await startChildServer({ name: 'recording', args: ['--import', 'tsx', path.resolve('bench/chat-recording-proxy.ts'), upstream.url, KEY, path.join(dir, 'records.db')] });
});
afterAll(async () => {
  await proxy?.stop();
  await upstream?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const complete = (body: unknown, key = KEY) =>
  fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** what the proxy committed, read by another connection as soon as the answer is whole */
const stored = () => {
  const db = new Database(path.join(dir, 'records.db'), { readonly: true });
  try {
    return {
      messages: db.prepare('SELECT role, content FROM messages ORDER BY conversation, id').all(),
      conversations: db.prepare('SELECT COUNT(*) AS n FROM conversations WHERE messages = 2').get(),
      usage: db.prepare('SELECT model, prompt_tokens, completion_tokens, total_tokens FROM usage ORDER BY id').all(),
    };
  } finally {
    db.close();
  }
};

describe('bench chat recording proxy', () => {
  it('answers as the upstream did, with the turn, its conversation and the usage committed before the answer ends', async () => {
    const plain = await complete({ model: 'agent', messages: [{ role: 'user', content: 'Hi' }] });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'fine, thanks' } }] });
    expect(stored()).toEqual({
      messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'fine, thanks' }],
      conversations: { n: 1 },
      usage: [{ model: 'agent', prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 }],
    });

    const streamed = await complete({ model: 'agent', messages: [{ role: 'user', content: 'And you?' }], stream: true, stream_options: { include_usage: true } });
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const text = await streamed.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const after = stored();
    expect(after.messages).toContainEqual({ role: 'user', content: 'And you?' });
    expect(after.messages.filter((m) => (m as { content: string }).content === 'fine, thanks')).toHaveLength(2);
    expect(after.conversations).toEqual({ n: 2 });
    expect(after.usage).toHaveLength(2);

    expect((await complete({ model: 'agent', messages: [] }, 'sk-wrong-0123456789abcdef0')).status).toBe(401);
  });
});
