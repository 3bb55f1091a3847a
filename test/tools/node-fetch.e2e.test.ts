import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../src/tools/mcp/node-fetch.js';

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

const refused = () => Promise.reject(new Error('no fallback expected'));
const post = (body: string, extra: RequestInit = {}): RequestInit => ({ method: 'POST', headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer t' }), body, redirect: 'manual', ...extra });

describe('nodeFetch (an MCP server transport’s requests over node:http)', () => {
  it('sends the body and headers, and answers with the status, headers and body as fetch does', async () => {
    let seen: { headers: http.IncomingHttpHeaders; body: string } | undefined;
    const url = await listen((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen = { headers: req.headers, body };
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    const response = await nodeFetch(1024, refused)(url, post('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(seen?.body).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(seen?.headers.authorization).toBe('Bearer t');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['user-agent']).toBe('node');
  });

  it('reads an event stream of many events under the limit, and fails one event passing it while it is read', async () => {
    const url = await listen((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // a server writing one event without end: refused while it is read, not held
      if (req.headers['x-size'] === 'big') return void res.write(`data: ${'x'.repeat(2000)}`);
      for (let i = 0; i < 20; i++) res.write(`data: ${'x'.repeat(100)}\n\n`);
      res.end();
    });
    const small = await nodeFetch(1024, refused)(url, post('{}'));
    expect((await small.text()).split('\n\n').length).toBe(21);
    const big = await nodeFetch(1024, refused)(url, post('{}', { headers: { 'x-size': 'big' } }));
    await expect(big.text()).rejects.toThrow(/larger than the message limit/);
  });

  it('fails a JSON answer of unsaid length once it passes the limit', async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`"${'x'.repeat(2000)}`);
    });
    const response = await nodeFetch(1024, refused)(url, post('{}'));
    await expect(response.text()).rejects.toThrow(/larger than the message limit/);
  });

  it('fails the answer being read with the signal’s reason when the request is aborted', async () => {
    let closed = false;
    const url = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: \n\n');
      res.on('close', () => (closed = true));
    });
    const abort = new AbortController();
    const response = await nodeFetch(1024, refused)(url, post('{}', { signal: abort.signal }));
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort(new Error('the call was cancelled'));
    await expect(reader.read()).rejects.toThrow('the call was cancelled');
    await expect.poll(() => closed).toBe(true);
  });

  it('fails as fetch does when nothing listens: a TypeError naming the cause', async () => {
    const url = await listen(() => undefined);
    server!.close();
    const failed = await nodeFetch(1024, refused)(url, post('{}')).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TypeError);
    expect(((failed as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('leaves what it does not cover to the fallback: a redirect to follow, a body that is not text', async () => {
    const asked: string[] = [];
    const fallback = async (url: string | URL) => {
      asked.push(String(url));
      return new Response('fallback');
    };
    await nodeFetch(1024, fallback)('http://127.0.0.1:9/a', { method: 'POST', body: '{}' });
    await nodeFetch(1024, fallback)('http://127.0.0.1:9/b', { method: 'POST', body: new URLSearchParams({ a: '1' }), redirect: 'manual' });
    expect(asked).toEqual(['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b']);
  });
});
