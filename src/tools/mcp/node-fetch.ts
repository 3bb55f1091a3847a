import http from 'node:http';
import https from 'node:https';
import { messageCounter } from './message-counter.js';
import { oversizedError } from './oversized.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** kept-alive connections to every HTTP server, as fetch's global dispatcher keeps them */
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/**
 * fetch for an MCP server's transport, over node:http: the SDK's requests are a JSON body, a
 * manual redirect (fetchWithinOrigin follows within the origin itself), the transport's signal,
 * and an answer read as a stream. Global fetch does this through a Request, a fetch controller
 * and a web stream per body; here a request is one ClientRequest and its answer one stream, its
 * abort listener gone when the answer ends (the transport's signal is every request's). The
 * answers to POSTs fail as soon as one message passes `maxBytes`, while they are read: a JSON
 * answer counted whole, an event stream per event, so a long call's many progress events are no
 * fault; the long-lived GET stream is left whole (the SDK reconnects it by itself). A request
 * this does not cover (a body other than text, a redirect to follow, another scheme) goes to
 * `fallback`. Faults are fetch's: a TypeError with the cause, the signal's reason on an abort.
 */
export function nodeFetch(maxBytes: number, fallback: Fetch): Fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? new URL(input) : input;
    const body = init?.body;
    const agent = agents[url.protocol as keyof typeof agents];
    if (!agent || (body != null && typeof body !== 'string') || init?.redirect !== 'manual') return fallback(input, init);
    return request(url, agent, { method: init.method ?? 'GET', headers: plainHeaders(init.headers), body: body ?? undefined, signal: init.signal ?? undefined }, maxBytes);
  };
}

interface Sent {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

function request(url: URL, agent: http.Agent, sent: Sent, maxBytes: number): Promise<Response> {
  const { signal } = sent;
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (sent.body !== undefined) sent.headers['content-length'] = String(Buffer.byteLength(sent.body));
  // as fetch names itself: a server (or the firewall before it) refusing requests without one sees no change
  sent.headers['user-agent'] ??= 'node';
  return new Promise((resolve, reject) => {
    let answer: ReadableStreamDefaultController<Uint8Array> | undefined;
    let settled = false;
    const client = (url.protocol === 'https:' ? https : http).request(url, { method: sent.method, headers: sent.headers, agent });
    const onAbort = () => {
      client.destroy();
      if (!settled) reject(signal!.reason);
      answer?.error(signal!.reason);
      answer = undefined;
    };
    const done = () => signal?.removeEventListener('abort', onAbort);
    signal?.addEventListener('abort', onAbort, { once: true });
    client.on('error', (error) => {
      done();
      if (!settled) reject(new TypeError('fetch failed', { cause: error }));
      answer?.error(new TypeError('terminated', { cause: error }));
      answer = undefined;
    });
    client.on('response', (res) => {
      settled = true;
      const status = res.statusCode ?? 0;
      const headers = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      if (sent.method === 'HEAD' || status === 204 || status === 205 || status === 304) {
        done();
        res.resume();
        return resolve(new Response(null, { status, statusText: res.statusMessage, headers }));
      }
      const count = sent.method !== 'POST' ? undefined : messageCounter(res.headers['content-type']?.includes('text/event-stream') === true, Number(res.headers['content-length'] ?? NaN), maxBytes);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          answer = controller;
          res.on('data', (chunk: Buffer) => {
            if (!answer) return;
            if (count && !count(chunk)) {
              answer.error(oversizedError(maxBytes));
              answer = undefined;
              done();
              return void res.destroy();
            }
            answer.enqueue(chunk);
            if ((answer.desiredSize ?? 1) <= 0) res.pause();
          });
          res.on('end', () => {
            done();
            answer?.close();
            answer = undefined;
          });
          res.on('error', (error) => {
            done();
            answer?.error(new TypeError('terminated', { cause: error }));
            answer = undefined;
          });
          res.on('close', () => {
            done();
            if (!res.complete) answer?.error(new TypeError('terminated', { cause: new Error('the connection closed before the answer ended') }));
            answer = undefined;
          });
        },
        pull: () => void res.resume(),
        cancel: () => {
          answer = undefined;
          done();
          res.destroy();
        },
      },
      // the reader is paused only when this many chunks wait unread (not after each one)
      { highWaterMark: 16 });
      resolve(new Response(stream, { status, statusText: res.statusMessage, headers }));
    });
    client.end(sent.body);
  });
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  const plain: Record<string, string> = {};
  const entries = headers instanceof Headers || Array.isArray(headers) ? (headers as Iterable<[string, string]>) : Object.entries((headers ?? {}) as Record<string, string>);
  for (const [name, value] of entries) plain[name.toLowerCase()] = value;
  return plain;
}
