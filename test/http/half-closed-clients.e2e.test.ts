import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, HOOK_TOKEN, baseConfig, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { startFakeUpstream } from './v1/fake-openai-upstream.js';
import { rawRequest } from './raw-socket.js';

/**
 * A client that half-closes its socket once its request is sent (HTTP/1.0 tools, `nc`, scripts
 * shutting their side down), against `herald serve`'s server (src/http/server/gateway-server.ts): a
 * webhook's answer is owed however long it takes, while the platform API still treats the end
 * as the client going away and cancels the work. The chat's model is a fake OpenAI-compatible
 * server speaking the Chat Completions API's streaming
 * (https://platform.openai.com/docs/api-reference/chat-streaming).
 */
let herald: RunningHerald | undefined;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  await upstream?.close();
});
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const post = (path: string, authorization: string, body: string) =>
  `POST ${path} HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${authorization}\nContent-Type: application/json\nContent-Length: ${Buffer.byteLength(body)}`;

describe('clients that half-close their socket once the request is sent', () => {
  it('get the answer of their webhook, however long it takes, and the call is kept', async () => {
    herald = await startHerald(
      baseConfig({ hooks: { enabled: true, token: HOOK_TOKEN, mappings: [{ id: 'skipper', match: { path: 'skip' }, transform: { module: 'skip.mjs' }, messageTemplate: 'x', deliver: false }] } }),
      // a transform answers from its worker, after the sender's end has reached the server
      { files: { 'transforms/skip.mjs': 'export default () => null;\n' } },
    );
    expect((await rawRequest(herald.url, post('/hooks/skip', HOOK_TOKEN, '{}'), ['{}'], { end: true })).status).toBe(204);
    const body = '{"message":"sent by a half-closing client","deliver":false}';
    const agent = await rawRequest(herald.url, post('/hooks/agent', HOOK_TOKEN, body), [body], { end: true });
    expect(agent.status).toBe(202);
    const { runId } = JSON.parse(agent.body) as { runId: string };
    expect((await herald.gateway.store.runs.get(runId))?.message).toBe('sent by a half-closing client');
  });

  it('of a streamed chat completion have it cancelled: the model call is abandoned and nothing is stored', async () => {
    herald = await startHerald(
      baseConfig({
        models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1` } } },
        agents: { defaults: { model: 'up/gpt-test' }, list: [{ id: 'main' }] },
      }),
    );
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // the stream stops after its first piece until the test lets it go on
    upstream.stream({ deltas: ['first', ' second', ' third'], before: (i) => (i === 1 ? held : Promise.resolve()) });
    const body = JSON.stringify({ model: 'main', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const { port } = new URL(herald.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    const firstPiece = new Promise<void>((resolve) =>
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
        if (received.includes('"first"')) resolve();
      }),
    );
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`${post('/v1/chat/completions', API_KEY, body).replace(/\n/g, '\r\n')}\r\n\r\n${body}`);
    await firstPiece;
    socket.end();
    await closed;
    release();
    // the turn was cancelled: its conversation never reached the store
    await new Promise((r) => setTimeout(r, 200));
    const conversation = /x-conversation-id: (\S+)/i.exec(received)?.[1];
    expect(conversation).toBeDefined();
    expect(await herald.gateway.store.sessions.messages(`chat:${conversation}`)).toEqual([]);
    expect(received).not.toContain('" third"');
  });
});
