import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN, HOOK_TOKEN, baseConfig, eventually, startHerald, type RunningHerald } from '../helpers/start-herald.js';

/** sends the head and part of a declared body, then resets the connection (ECONNRESET on the server's side) */
function abandon(url: string, path: string, headers: string[]): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write([`POST ${path} HTTP/1.1`, `Host: ${hostname}`, 'Content-Length: 100000', ...headers, '', 'partial body, then gone'].join('\r\n'));
      setImmediate(() => {
        socket.resetAndDestroy();
        resolve();
      });
    });
    socket.on('error', () => resolve());
  });
}

let herald: RunningHerald;
beforeAll(async () => {
  herald = await startHerald(baseConfig());
});
afterAll(async () => herald?.stop());

describe('a client that closes mid-body', () => {
  it('is no 500 on /hooks, /v1/chat/completions or /v1/knowledge/upload: a debug line, not a 5xx in the metrics', async () => {
    const cases: [string, string[]][] = [
      ['/hooks/wake', [`Authorization: Bearer ${HOOK_TOKEN}`, 'Content-Type: application/json']],
      ['/v1/chat/completions', [`Authorization: Bearer ${API_KEY}`, 'Content-Type: application/json']],
      ['/v1/knowledge/upload', [`Authorization: Bearer ${API_KEY}`, 'Content-Type: multipart/form-data; boundary=xyz']],
    ];
    for (const [path, headers] of cases) {
      await abandon(herald.url, path, headers);
      const line = await eventually(() => herald.logs.find((l) => l.msg === 'request' && l.path === path));
      expect(line.status, path).toBe(499);
    }
    expect(herald.logs.filter((l) => l.msg === 'client closed the request mid-body')).toHaveLength(3);
    expect(herald.logs.filter((l) => (l.level as number) >= 50)).toEqual([]);
    const metrics = await (await fetch(`${herald.url}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).text();
    expect(metrics).not.toMatch(/status="5\d\d"/);
    expect((await fetch(`${herald.url}/healthz`)).status).toBe(200);
  });
});
