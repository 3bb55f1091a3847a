import { afterEach, describe, expect, it } from 'vitest';
import { baseConfig, HOOK_TOKEN, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { chunk, rawRequest } from './raw-socket.js';

let herald: RunningHerald | undefined;
afterEach(async () => herald?.stop());

const head = (extra: string) =>
  `POST /hooks/wake HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${HOOK_TOKEN}\nContent-Type: application/json\n${extra}`;

describe('request bodies over a real socket', () => {
  it('413 for a chunked body that grows past hooks.maxBodyBytes while streaming', async () => {
    herald = await startHerald(baseConfig({ hooks: { maxBodyBytes: 1000 } }));
    const res = await rawRequest(herald.url, head('Transfer-Encoding: chunked'), [
      chunk('{"text":"'),
      chunk('a'.repeat(600)),
      chunk('a'.repeat(600)),
      chunk('"}'),
      '0\r\n\r\n',
    ]);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'the body is larger than hooks.maxBodyBytes (1000 bytes)' });
    expect(res.headers['x-request-id']).toBeTruthy();
    const events = await herald.gateway.store.events.list('main', 10);
    expect(events).toHaveLength(0);
  });

  it('accepts a chunked body within the limit', async () => {
    herald = await startHerald(baseConfig({ hooks: { maxBodyBytes: 1000 } }));
    const res = await rawRequest(herald.url, head('Transfer-Encoding: chunked'), [chunk('{"text":"chunked '), chunk('hello"}'), '0\r\n\r\n']);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, mode: 'now', eventOutcome: 'queued' });
  });

  it('413 for a declared Content-Length over the limit, without waiting for the body', async () => {
    herald = await startHerald(baseConfig({ hooks: { maxBodyBytes: 1000 } }));
    const res = await rawRequest(herald.url, head('Content-Length: 5000'), ['{"text":"']);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'the body is larger than hooks.maxBodyBytes (1000 bytes)' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('408 for a body that stops arriving (hooks.bodyTimeoutMs)', async () => {
    herald = await startHerald(baseConfig({ hooks: { bodyTimeoutMs: 300 } }));
    const res = await rawRequest(herald.url, head('Content-Length: 100'), ['{"text":"hel']);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'request body timeout' });
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers.connection).toBe('close');
  });

  it('413 for a streamed body over the limit and 408 for a stalled one: nothing of either reaches the store', async () => {
    herald = await startHerald(baseConfig({ hooks: { maxBodyBytes: 200, bodyTimeoutMs: 300 } }));
    const streamed = await rawRequest(herald.url, head('Transfer-Encoding: chunked'), [chunk('{"text":"'), chunk('y'.repeat(300)), chunk('"}'), '0\r\n\r\n']);
    expect(streamed.status).toBe(413);
    const stalled = await rawRequest(herald.url, head('Content-Length: 50'), ['{"text":"hel']);
    expect(stalled.status).toBe(408);
    expect(stalled.headers['x-request-id']).toBeTruthy();
    expect(await herald.gateway.store.events.list('main', 10)).toHaveLength(0);
  });

  it('408 for a chunked body that stalls mid-way', async () => {
    herald = await startHerald(baseConfig({ hooks: { bodyTimeoutMs: 300 } }));
    const res = await rawRequest(herald.url, head('Transfer-Encoding: chunked'), [chunk('{"text":"hel')]);
    expect(res.status).toBe(408);
  });
});
