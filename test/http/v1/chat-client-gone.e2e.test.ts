import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, eventually, startHerald, type RunningHerald } from '../../helpers/start-herald.js';

/** a provider that reads the request and never answers, noting when its side of each request closes */
let silent: http.Server;
let asked = 0;
let closed = 0;
let herald: RunningHerald;

beforeAll(async () => {
  silent = http.createServer((req) => {
    asked++;
    req.resume();
    req.socket.once('close', () => closed++);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  herald = await startHerald(
    baseConfig({
      models: { providers: { silent: { api: 'openai', baseUrl: `http://127.0.0.1:${port}/v1` } } },
      agents: { list: [{ id: 'slow', model: 'silent/gpt-test' }] },
    }),
  );
});
afterAll(async () => {
  await herald?.stop();
  silent?.closeAllConnections();
  await new Promise((resolve) => silent?.close(resolve));
});

describe('a plain chat completion whose client goes away (Node door)', () => {
  it('aborts its model call: the upstream connection is closed', async () => {
    const client = new AbortController();
    const answering = fetch(`${herald.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'Hello?' }] }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await eventually(() => asked === 1);
    expect(closed).toBe(0);
    client.abort();
    expect(await answering).toMatchObject({ name: 'AbortError' });
    await eventually(() => closed === 1);
  });
});
