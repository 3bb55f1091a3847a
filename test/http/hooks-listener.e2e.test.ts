import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, HOOK_TOKEN, baseConfig, hookHeaders, startHerald, type RunningHerald } from '../helpers/start-herald.js';
import { rawRequest } from './raw-socket.js';

let herald: RunningHerald | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const mappings = [
  { id: 'slack-challenge', match: { path: 'slack' }, respond: { when: 'type = "url_verification"', body: '{{challenge}}', contentType: 'text/plain' }, messageTemplate: 'Slack {{type}}', deliver: false },
  { id: 'meta-verification', match: { path: 'meta' }, respond: { method: 'GET', verifyToken: { query: 'hub.verify_token', token: 'meta-verify' }, when: '$query."hub.mode" = "subscribe"', body: '{{ $query."hub.challenge" }}' }, messageTemplate: 'Meta {{object}}', deliver: false },
  { id: 'skipper', match: { path: 'skip' }, transform: { module: 'skip.mjs' }, messageTemplate: 'x', deliver: false },
];

type Call = [label: string, method: string, path: string, headers: Record<string, string>, body?: string];

const CALLS: Call[] = [
  ['wake', 'POST', '/hooks/wake', hookHeaders(), '{"text":"Deploy finished %carrier"}'],
  ['agent', 'POST', '/hooks/agent', { ...hookHeaders(), 'x-request-id': 'caller-id-1' }, '{"message":"Summarise","deliver":false}'],
  ['bad JSON', 'POST', '/hooks/wake', hookHeaders(), '{"text": '],
  ['bad field', 'POST', '/hooks/agent', hookHeaders(), '{"message":"m","deliver":"yes"}'],
  ['unmapped', 'POST', '/hooks/nothing-mapped', hookHeaders(), '{}'],
  ['GET', 'GET', '/hooks/wake', hookHeaders()],
  ['HEAD', 'HEAD', '/hooks/wake', hookHeaders()],
  ['PUT', 'PUT', '/hooks/wake', hookHeaders(), '{}'],
  ['no token', 'POST', '/hooks/wake', { 'content-type': 'application/json' }, '{"text":"x"}'],
  ['wrong token', 'POST', '/hooks/wake', hookHeaders('wrong-token-0123456789abcdef'), '{"text":"x"}'],
  ['query token', 'POST', `/hooks/wake?token=${HOOK_TOKEN}&x=1`, { 'content-type': 'application/json' }, '{"text":"by query %carrier"}'],
  ['header token', 'POST', '/hooks/wake', { 'x-openclaw-token': HOOK_TOKEN, 'content-type': 'application/json' }, '{"text":"by header %carrier"}'],
  ['bad idempotency key', 'POST', '/hooks/wake', { ...hookHeaders(), 'idempotency-key': ' ' }, '{"text":"x"}'],
  ['over the limit', 'POST', '/hooks/wake', hookHeaders(), JSON.stringify({ text: 'x'.repeat(300_000) })],
  ['handshake', 'POST', '/hooks/slack', hookHeaders(), '{"type":"url_verification","challenge":"c-123"}'],
  ['GET handshake', 'GET', '/hooks/meta?hub.mode=subscribe&hub.verify_token=meta-verify&hub.challenge=1158201444', {}],
  ['GET handshake, wrong token', 'GET', '/hooks/meta?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1', {}],
  ['skipped by its transform', 'POST', '/hooks/skip', hookHeaders(), '{}'],
  ['the surface itself', 'POST', '/hooks', hookHeaders(), '{}'],
];

const HEADERS = ['content-type', 'allow', 'deprecation', 'retry-after', 'idempotent-replayed'];

/** what a client sees of an answer, but the parts that differ by nature (run ids, generated request ids) */
async function seen(res: Response) {
  const text = await res.text();
  const headers = Object.fromEntries(HEADERS.map((name) => [name, res.headers.get(name)]));
  return { status: res.status, body: text.replace(/"runId":"[^"]+"/, '"runId":"<id>"'), headers, requestId: res.headers.get('x-request-id') };
}

describe('the webhook surface answered from Node`s request (herald serve)', () => {
  it('answers every kind of call as the app answers it through app.request(): status, body and headers', async () => {
    herald = await startHerald(baseConfig({ hooks: { enabled: true, token: HOOK_TOKEN, mappings } }), {
      files: { 'transforms/skip.mjs': 'export default () => null;\n' },
    });
    for (const [label, method, path, headers, body] of CALLS) {
      // a wake repeating the one before is coalesced: each carrier's text is its own
      const init = (carrier: string) => ({ method, headers, ...(body !== undefined && { body: body.replace('%carrier', carrier) }) });
      const overSocket = await seen(await fetch(`${herald.url}${path}`, init('socket')));
      const throughApp = await seen(await herald.gateway.app.request(`http://127.0.0.1${path}`, init('app')));
      // the app's 204 carries hono's default text/plain: Node's carries no body, so no type
      if (throughApp.status === 204) throughApp.headers['content-type'] = null;
      expect({ label, ...overSocket, requestId: overSocket.requestId === 'caller-id-1' ? overSocket.requestId : typeof overSocket.requestId }).toEqual({
        label,
        ...throughApp,
        requestId: throughApp.requestId === 'caller-id-1' ? throughApp.requestId : typeof throughApp.requestId,
      });
    }
  });

  it('an idempotent replay over the socket says so, as through the app', async () => {
    herald = await startHerald();
    const send = () => fetch(`${herald!.url}/hooks/agent`, { method: 'POST', headers: { ...hookHeaders(), 'idempotency-key': 'k-1' }, body: '{"message":"once","deliver":false}' });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });

  it('leaves a receipt, an access-log line and the request counted, as the app`s middleware does', async () => {
    herald = await startHerald(baseConfig({ gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN }, metrics: { enabled: true } } }));
    const res = await fetch(`${herald.url}/hooks/wake`, { method: 'POST', headers: { ...hookHeaders(), 'x-request-id': 'trace-42' }, body: '{"text":"counted"}' });
    expect(res.status).toBe(200);
    const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
    let receipts: { requestId: string; status: number; authMethod: string; outcome: string; path: string }[] = [];
    for (let i = 0; i < 50 && !receipts.length; i++) {
      receipts = ((await (await fetch(`${herald.url}/admin/receipts`, { headers: admin })).json()) as { data: typeof receipts }).data;
      if (!receipts.length) await new Promise((r) => setTimeout(r, 20));
    }
    expect(receipts[0]).toMatchObject({ requestId: 'trace-42', status: 200, authMethod: 'bearer', outcome: 'wake', path: 'wake' });
    expect(herald.logs.find((l) => l.msg === 'request' && l.reqId === 'trace-42')).toMatchObject({ method: 'POST', path: '/hooks/wake', status: 200, bodyBytes: 18 });
    const metrics = await (await fetch(`${herald.url}/metrics`, { headers: admin })).text();
    expect(metrics).toMatch(/herald_http_requests_total\{[^}]*surface="hooks"[^}]*status="200"[^}]*\} 1/);
  });

  it('hands a target that only names the surface after normalisation to the app, which decides it as before', async () => {
    herald = await startHerald();
    const res = await rawRequest(herald.url, 'GET /hooks/../healthz HTTP/1.1\nHost: 127.0.0.1\nConnection: close', [], { end: true });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true });
    // without a Host, the app's adapter supplies the listening address
    const noHost = await rawRequest(herald.url, `POST /hooks/wake HTTP/1.0\nAuthorization: Bearer ${HOOK_TOKEN}\nContent-Type: application/json\nContent-Length: 12`, ['{"text":"x"}'], { end: true });
    expect(noHost.status).toBe(200);
    expect(JSON.parse(noHost.body)).toMatchObject({ ok: true, mode: 'now' });
  });

  it('reads and drops the body of a call refused before reading it, so the connection takes the next call', async () => {
    herald = await startHerald();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (token: string, body: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = http.request(`${herald!.url}/hooks/wake`, { method: 'POST', agent, headers: { ...hookHeaders(token), 'content-length': Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const refused = await send('wrong-token-0123456789abcdef', JSON.stringify({ text: 'y'.repeat(100_000) }));
    const next = await send(HOOK_TOKEN, '{"text":"after a refusal"}');
    agent.destroy();
    expect(refused).toEqual({ status: 401, reused: false });
    expect(next).toEqual({ status: 200, reused: true });
  });

  it('closes the connection of a refused call whose body goes on past what a body may hold', async () => {
    herald = await startHerald();
    const { port } = new URL(herald.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    const closed = new Promise<string>((resolve) => {
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
      socket.on('close', () => resolve(answer));
    });
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong-token-0123456789abcdef\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`);
    // more than hooks.maxBodyBytes (256 KiB), and the declared rest never comes
    socket.write(Buffer.alloc(400_000, 0x20));
    const answer = await Promise.race([closed, new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 5_000))]);
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 (401|413) /);
  });
});
