import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeServer } from '../helpers/fake-server.js';
import { API_KEY, HOOK_TOKEN, baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startFakeOpenAI } from '../models/fake-openai.js';

/**
 * A request body is read whether it came with its headers (taken from the request's buffer at
 * once) or after them, in pieces (read as it streams): each request of a kept-alive connection
 * gets its own body, and nothing of one is read as the next.
 */

let upstream: FakeServer;
let herald: RunningHerald;
beforeAll(async () => {
  upstream = await startFakeOpenAI((messages) => `echo: ${messages.at(-1)?.content}`);
  herald = await startHerald(
    baseConfig({
      models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1` } } },
      agents: { list: [{ id: 'echo', model: 'up/test-model' }] },
    }),
  );
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

const request = (path: string, token: string, body: string, last = false) =>
  [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${token}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, ...(last ? ['Connection: close'] : []), '', body].join(
    '\r\n',
  );
const chat = (content: string) => JSON.stringify({ model: 'echo', messages: [{ role: 'user', content }] });

/** writes `parts` in order on one connection (`pauseMs` between them) and returns all it answered until the server closed it */
function converse(parts: string[], pauseMs = 0): Promise<string> {
  const { hostname, port } = new URL(herald.url);
  return new Promise((resolve, reject) => {
    let answered = '';
    const socket = net.connect(Number(port), hostname, async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, pauseMs));
        socket.write(part);
      }
    });
    socket.on('data', (piece) => (answered += piece.toString('utf8')));
    socket.on('close', () => resolve(answered));
    socket.on('error', reject);
  });
}

const statuses = (answered: string) => [...answered.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

describe('a request body', () => {
  it('of requests pipelined in one write: each request is answered from its own body, in order', async () => {
    const answered = await converse([
      request('/v1/chat/completions', API_KEY, chat('first')) + request('/hooks/wake', HOOK_TOKEN, JSON.stringify({ text: 'between', mode: 'next-heartbeat' })) + request('/v1/chat/completions', API_KEY, chat('second'), true),
    ]);
    expect(statuses(answered)).toEqual([200, 200, 200]);
    const first = answered.indexOf('"content":"echo: first"');
    const second = answered.indexOf('"content":"echo: second"');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    // the wake waits for the next heartbeat (none here): no turn of its own asks the model in between
    const asked = upstream.requests.slice(-2).map((r) => (r.json?.messages as { content: string }[]).at(-1)?.content);
    expect(asked).toEqual(['first', 'second']);
  });

  it('that arrives after its headers, in pieces: the whole of it is read before it is answered', async () => {
    const whole = request('/v1/chat/completions', API_KEY, chat('slowly typed, in three pieces'), true);
    const bodyAt = whole.indexOf('\r\n\r\n') + 4;
    const answered = await converse([whole.slice(0, bodyAt), whole.slice(bodyAt, bodyAt + 10), whole.slice(bodyAt + 10)], 30);
    expect(statuses(answered)).toEqual([200]);
    expect(answered).toContain('"content":"echo: slowly typed, in three pieces"');
  });
});
