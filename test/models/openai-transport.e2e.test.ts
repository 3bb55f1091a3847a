import http from 'node:http';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAIModel } from '../../src/models/providers/openai-model.js';
import type { ModelRequest } from '../../src/models/provider.js';
import { completion, socketBack, sse } from './fake-openai.js';

// the provider speaks HTTP through its own keep-alive transport; what an upstream may do on the
// wire (compress, redirect, keep the connection) must work as it did with the built-in fetch

interface Upstream {
  url: string;
  connections: number;
  paths: string[];
  close(): Promise<void>;
}

let upstream: Upstream | undefined;
afterEach(async () => upstream?.close());

async function startUpstream(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Upstream> {
  const state = { connections: 0, paths: [] as string[] };
  const server = http.createServer((req, res) => {
    state.paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get connections() {
      return state.connections;
    },
    paths: state.paths,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const request = (): ModelRequest => ({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], purpose: 'chat' });

describe('openai-kind provider transport', () => {
  it('reads gzip and brotli encoded answers, plain and streamed', async () => {
    upstream = await startUpstream((req, res) => {
      const br = req.headers['accept-encoding']?.includes('br');
      const streamed = req.url!.includes('stream');
      const body = Buffer.from(streamed ? sse(['Hel', 'lo']) : JSON.stringify(completion('Hello')));
      res.writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json', 'content-encoding': br ? 'br' : 'gzip' });
      res.end(br ? zlib.brotliCompressSync(body) : zlib.gzipSync(body));
    });
    expect((await new OpenAIModel({ baseUrl: `${upstream.url}/v1` }).complete(request())).text).toBe('Hello');
    const deltas: string[] = [];
    for await (const event of new OpenAIModel({ baseUrl: `${upstream.url}/stream/v1` }).stream(request())) if (event.type === 'delta') deltas.push(event.text);
    expect(deltas.join('')).toBe('Hello');
  });

  it('follows a redirect to the answer', async () => {
    upstream = await startUpstream((req, res) => {
      if (!req.url!.startsWith('/moved')) {
        res.writeHead(307, { location: `/moved${req.url}` }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion('over here')));
    });
    expect((await new OpenAIModel({ baseUrl: `${upstream.url}/v1` }).complete(request())).text).toBe('over here');
    expect(upstream.paths.at(-1)).toBe('/moved/v1/chat/completions');
  });

  it('keeps one connection to the upstream across completions', async () => {
    upstream = await startUpstream((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion('ok'))));
    const model = new OpenAIModel({ baseUrl: `${upstream.url}/v1` });
    for (let i = 0; i < 5; i++) {
      expect((await model.complete(request())).text).toBe('ok');
      await socketBack();
    }
    expect(upstream.connections).toBe(1);
  });

  it('fails with the upstream status, and with a connection error when nothing listens', async () => {
    upstream = await startUpstream((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"busy"}}'));
    await expect(new OpenAIModel({ baseUrl: `${upstream.url}/v1` }).complete(request())).rejects.toMatchObject({ status: 503 });
    const closed = upstream.url;
    await upstream.close();
    upstream = undefined;
    await expect(new OpenAIModel({ baseUrl: `${closed}/v1` }).complete(request())).rejects.toThrow(/Connection error/);
  });

  it('aborts through the request signal', async () => {
    upstream = await startUpstream(() => {});
    const model = new OpenAIModel({ baseUrl: `${upstream.url}/v1` });
    await expect(model.complete({ ...request(), signal: AbortSignal.timeout(50) })).rejects.toThrow(/aborted/);
  });
});
