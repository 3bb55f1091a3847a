import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleClient } from '../../src/models/providers/openai-compatible-client.js';
import { ProviderAbortError, ProviderConnectionError, ProviderHttpError } from '../../src/models/providers/provider-errors.js';
import { providerFailureFields } from '../../src/models/providers/provider-failure.js';
import { socketBack } from './fake-openai.js';

/**
 * A fake OpenAI-compatible upstream on 127.0.0.1, answering as OpenAI documents: JSON errors
 * `{"error":{"message","type","param","code"}}` with `x-request-id`
 * (https://platform.openai.com/docs/guides/error-codes), streams as `data: <chunk>` events ending
 * `data: [DONE]` (https://platform.openai.com/docs/api-reference/chat-streaming). Each test
 * scripts the raw answer, down to how its bytes are cut into writes.
 */
interface Upstream {
  url: string;
  requests: { path: string; headers: http.IncomingHttpHeaders; body: string }[];
  connections: number;
  /** resolves when the n-th request's connection (1-based) has closed */
  closed(n: number): Promise<void>;
  close(): Promise<void>;
}

let upstream: Upstream | undefined;
afterEach(async () => upstream?.close());

async function startUpstream(answer: (res: http.ServerResponse, body: string) => unknown): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  const closings: Promise<void>[] = [];
  const state = { connections: 0 };
  const server = http.createServer((req, res) => {
    closings.push(new Promise((resolve) => res.once('close', () => resolve())));
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      res.socket?.setNoDelay(true);
      void answer(res, body);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    get connections() {
      return state.connections;
    },
    closed: async (n) => {
      while (closings.length < n) await new Promise((r) => setImmediate(r));
      await closings[n - 1];
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** writes each piece as its own TCP segment (no delay, each after the one before was handed to the kernel) */
async function writeApart(res: http.ServerResponse, pieces: (string | Buffer)[]) {
  for (const piece of pieces) await new Promise<void>((resolve) => res.write(piece, () => setImmediate(resolve)));
}

const chunk = (content: string) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const ssePayload = (contents: string[], lineEnd = '\n') => `${contents.map((c) => `data: ${JSON.stringify(chunk(c))}${lineEnd}${lineEnd}`).join('')}data: [DONE]${lineEnd}${lineEnd}`;

async function collect(stream: AsyncIterable<unknown>): Promise<string> {
  let text = '';
  for await (const c of stream) text += (c as ReturnType<typeof chunk>).choices[0]?.delta.content ?? '';
  return text;
}

describe('OpenAI-compatible client', () => {
  it('posts the body as it is (any field) with the key, and returns the parsed answer', async () => {
    upstream = await startUpstream((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[{"message":{"content":"hi"}}]}'));
    const client = new OpenAICompatibleClient({ baseUrl: `${upstream.url}/v1/`, apiKey: 'sk-up' });
    const body = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], response_format: { type: 'json_object' }, vendor_knob: 3 };
    expect(await client.post('/chat/completions', body)).toEqual({ choices: [{ message: { content: 'hi' } }] });
    const [sent] = upstream.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers).toMatchObject({ authorization: 'Bearer sk-up', 'content-type': 'application/json' });
    expect(JSON.parse(sent!.body)).toEqual(body);
  });

  it('sends no authorization without a key', async () => {
    upstream = await startUpstream((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new OpenAICompatibleClient({ baseUrl: upstream.url }).post('/chat/completions', {});
    expect(upstream.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("fails with the upstream's status, error fields, request id and retry hint, as the official client words it", async () => {
    upstream = await startUpstream((res) =>
      res
        .writeHead(429, { 'content-type': 'application/json', 'x-request-id': 'req_123', 'retry-after': '7' })
        .end(JSON.stringify({ error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } })),
    );
    const error = (await new OpenAICompatibleClient({ baseUrl: upstream.url }).post('/chat/completions', {}).catch((e: unknown) => e)) as ProviderHttpError;
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toMatchObject({ status: 429, message: '429 Rate limit reached for requests', code: 'rate_limit_exceeded', type: 'requests', requestID: 'req_123' });
    expect(error.headers?.['retry-after']).toBe('7');
    expect(providerFailureFields(error)).toEqual({ upstreamStatus: 429, upstreamCode: 'rate_limit_exceeded', upstreamType: 'requests', upstreamRequestId: 'req_123' });
  });

  it('words an error without a JSON body by its status and text', async () => {
    upstream = await startUpstream((res) => res.writeHead(502, { 'content-type': 'text/html' }).end('Bad Gateway'));
    await expect(new OpenAICompatibleClient({ baseUrl: upstream.url }).post('/x', {})).rejects.toThrow('502 Bad Gateway');
  });

  it('sends a request again, once, on a fresh socket when the kept-alive one is closed as it is reused', async () => {
    let n = 0;
    // the second request's socket is closed under it, as a server closing an idle kept-alive socket does
    upstream = await startUpstream((res) => (++n === 2 ? res.socket!.destroy() : res.writeHead(200, { 'content-type': 'application/json' }).end(`{"n":${n}}`)));
    const client = new OpenAICompatibleClient({ baseUrl: upstream.url });
    expect(await client.post('/chat/completions', {})).toEqual({ n: 1 });
    await socketBack();
    expect(await client.post('/chat/completions', {})).toEqual({ n: 3 });
    expect(upstream.connections).toBe(2);
  });

  it('fails with a connection error naming the refused address', async () => {
    upstream = await startUpstream(() => {});
    const url = upstream.url;
    await upstream.close();
    upstream = undefined;
    const error = await new OpenAICompatibleClient({ baseUrl: url }).post('/chat/completions', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderConnectionError);
    expect(providerFailureFields(error).cause).toBe(`ECONNREFUSED 127.0.0.1:${new URL(url).port}`);
  });

  it('aborts a call the upstream never answers, closing its connection', async () => {
    upstream = await startUpstream(() => {});
    const abort = new AbortController();
    const call = new OpenAICompatibleClient({ baseUrl: upstream.url }).post('/chat/completions', {}, abort.signal);
    while (!upstream.requests.length) await new Promise((r) => setImmediate(r));
    abort.abort(new Error('time is up'));
    await expect(call).rejects.toBeInstanceOf(ProviderAbortError);
    await expect(call).rejects.toThrow(/aborted/);
    await upstream.closed(1);
  });

  it('decodes a stream cut into TCP segments at every byte, multi-byte characters included', async () => {
    const contents = ['Grüße', ' 日本', ' 🎉', ' ok'];
    const payload = Buffer.from(ssePayload(contents, '\r\n'));
    let cut = 0;
    upstream = await startUpstream(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeApart(res, [payload.subarray(0, cut), payload.subarray(cut)]);
      res.end();
    });
    const client = new OpenAICompatibleClient({ baseUrl: upstream.url });
    for (; cut <= payload.length; cut++) {
      expect(await collect(client.stream('/chat/completions', { stream: true }))).toBe(contents.join(''));
      await socketBack();
    }
    // every completion went over the one kept-alive connection: [DONE] leaves it reusable
    expect(upstream.connections).toBe(1);
  });

  /** an upstream that sends 'first', then holds the stream until released, then 'second' and [DONE] */
  async function startHeldUpstream(): Promise<{ release: () => void; held: Upstream }> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = await startUpstream(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeApart(res, [`data: ${JSON.stringify(chunk('first'))}\n\n`]);
      await released;
      res.end(`data: ${JSON.stringify(chunk('second'))}\n\ndata: [DONE]\n\n`);
    });
    // closed after the test with the others
    upstream = held;
    return { release, held };
  }

  it('yields each chunk as it arrives, before the rest of the stream', async () => {
    const { release, held } = await startHeldUpstream();
    const stream = new OpenAICompatibleClient({ baseUrl: held.url }).stream('/chat/completions', { stream: true });
    const first = await stream.next();
    expect((first.value as ReturnType<typeof chunk>).choices[0]!.delta.content).toBe('first');
    release();
    expect(await collect(stream)).toBe('second');
  });

  it("throws an error event of the stream as the upstream's error", async () => {
    upstream = await startUpstream((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(chunk('par'))}\n\ndata: {"error":{"message":"The server is overloaded","type":"server_error","code":null}}\n\n`);
    });
    const error = await collect(new OpenAICompatibleClient({ baseUrl: upstream.url }).stream('/chat/completions', {})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderHttpError);
    expect(error).toMatchObject({ message: 'The server is overloaded', type: 'server_error', status: undefined });
  });

  it('throws when the stream breaks off', async () => {
    upstream = await startUpstream(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeApart(res, [`data: ${JSON.stringify(chunk('partial'))}\n\n`]);
      res.socket!.destroy();
    });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const c of new OpenAICompatibleClient({ baseUrl: upstream!.url }).stream('/chat/completions', {})) seen.push((c as ReturnType<typeof chunk>).choices[0]!.delta.content);
    })();
    await expect(reading).rejects.toBeInstanceOf(ProviderConnectionError);
    expect(seen).toEqual(['partial']);
  });

  it('hands each chunk of a stream on as its piece arrives (streamEach), after onOpen, and resolves at the end', async () => {
    const { release, held } = await startHeldUpstream();
    const client = new OpenAICompatibleClient({ baseUrl: held.url });
    const seen: string[] = [];
    let firstSeen!: () => void;
    const first = new Promise<void>((resolve) => (firstSeen = resolve));
    const done = client.streamEach(
      '/chat/completions',
      { stream: true },
      (c) => {
        seen.push((c as ReturnType<typeof chunk>).choices[0]!.delta.content);
        firstSeen();
      },
      undefined,
      () => seen.push('(open)'),
    );
    await first;
    expect(seen).toEqual(['(open)', 'first']);
    release();
    await done;
    expect(seen).toEqual(['(open)', 'first', 'second']);
    await socketBack();
    // [DONE] leaves the connection reusable: the next stream goes over it
    const again: string[] = [];
    held.requests.length = 0;
    await expect(client.streamEach('/chat/completions', {}, (c) => again.push((c as ReturnType<typeof chunk>).choices[0]!.delta.content))).resolves.toBeUndefined();
    expect(held.connections).toBe(1);
  });

  it("streamEach rejects with the upstream's error event, a broken stream and an abort, as stream() throws them", async () => {
    upstream = await startUpstream(async (res, body) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (body.includes('error')) return res.end(`data: ${JSON.stringify(chunk('par'))}\n\ndata: {"error":{"message":"The server is overloaded","type":"server_error","code":null}}\n\n`);
      await writeApart(res, [`data: ${JSON.stringify(chunk('partial'))}\n\n`]);
      if (body.includes('break')) res.socket!.destroy();
    });
    const client = new OpenAICompatibleClient({ baseUrl: upstream.url });
    const ignore = () => {};
    await expect(client.streamEach('/chat/completions', { error: true }, ignore)).rejects.toMatchObject({ message: 'The server is overloaded', type: 'server_error' });
    await expect(client.streamEach('/chat/completions', { break: true }, ignore)).rejects.toBeInstanceOf(ProviderConnectionError);
    const abort = new AbortController();
    const held = client.streamEach('/chat/completions', { hold: true }, () => abort.abort(new Error('client went away')), abort.signal);
    await expect(held).rejects.toBeInstanceOf(ProviderAbortError);
  });

  it('aborts a stream through the signal, and when the reader stops early, closing the upstream connection', async () => {
    upstream = await startUpstream(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeApart(res, [`data: ${JSON.stringify(chunk('one'))}\n\n`]);
    });
    const client = new OpenAICompatibleClient({ baseUrl: upstream.url });
    const abort = new AbortController();
    const stream = client.stream('/chat/completions', {}, abort.signal);
    await stream.next();
    const waiting = stream.next();
    abort.abort(new Error('client went away'));
    await expect(waiting).rejects.toBeInstanceOf(ProviderAbortError);
    await upstream.closed(1);

    for await (const _ of client.stream('/chat/completions', {})) break;
    await upstream.closed(2);
  });
});
