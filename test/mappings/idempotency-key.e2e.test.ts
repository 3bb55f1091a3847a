import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, HOOK_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { sqliteDb } from '../helpers/sqlite-db.js';

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const repo = path.resolve(import.meta.dirname, '../..');
const shipped = (name: string) => fs.readFileSync(path.join(repo, name), 'utf8');
const fixture = (file: string, name: string) =>
  (JSON.parse(shipped(`mappings/${file}.test.json`)) as { name: string; headers?: Record<string, string>; payload: unknown }[]).find((c) => c.name === name)!;

/** the repository's example mappings and transforms, as a user copies them */
const examples = {
  'mappings/github.yaml': shipped('mappings/github.yaml'),
  'mappings/stripe.yaml': shipped('mappings/stripe.yaml'),
  'transforms/github-pull-request.ts': shipped('transforms/github-pull-request.ts'),
  'transforms/ignore.mjs': shipped('transforms/ignore.mjs'),
};

async function post(hookPath: string, body: unknown, headers: Record<string, string> = {}, token: string | null = HOOK_TOKEN) {
  const res = await herald!.request(`/hooks/${hookPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, any>) : null,
    replayed: res.headers.get('idempotent-replayed'),
    retryAfter: res.headers.get('retry-after'),
  };
}

const count = (sql: string) => (sqliteDb(herald!.gateway.store).prepare(sql).get() as { n: number }).n;
const runs = () => count('SELECT count(*) AS n FROM runs');

describe('a mapping idempotencyKey: the sender delivery id as an Idempotency-Key', () => {
  it('takes a GitHub delivery once per X-GitHub-Delivery, with the shipped github.yaml', async () => {
    herald = await testApp({}, { files: examples });
    const issue = fixture('github', 'an opened issue becomes an agent run in the issue\'s own session');
    const delivery = { ...issue.headers!, 'X-GitHub-Delivery': 'd-1' };

    const first = await post('github', issue.payload, delivery);
    expect(first).toMatchObject({ status: 202, body: { ok: true, runId: expect.any(String) }, replayed: null });
    // GitHub's "Redeliver": the same id, the same body
    const again = await post('github', issue.payload, delivery);
    expect(again).toEqual({ status: 202, body: first.body, replayed: 'true', retryAfter: null });
    expect(runs()).toBe(1);

    const next = await post('github', issue.payload, { ...delivery, 'X-GitHub-Delivery': 'd-2' });
    expect(next).toMatchObject({ status: 202, replayed: null });
    expect(next.body!.runId).not.toBe(first.body!.runId);
    expect(runs()).toBe(2);

    // a wake mapping of the path: one event, the repeat answered with the stored 200
    const push = fixture('github', 'push becomes a wake event for the next heartbeat');
    const pushHeaders = { ...push.headers!, 'X-GitHub-Delivery': 'd-3' };
    expect(await post('github', push.payload, pushHeaders)).toMatchObject({ status: 200, body: { ok: true, mode: 'next-heartbeat' }, replayed: null });
    expect(await post('github', push.payload, pushHeaders)).toMatchObject({ status: 200, body: { ok: true, mode: 'next-heartbeat' }, replayed: 'true' });
    expect(count("SELECT count(*) AS n FROM events WHERE text LIKE 'GitHub push to acme/app%'")).toBe(1);

    // a skipped event (ping) is remembered as its 204
    const ping = fixture('github', "GitHub's ping on webhook creation is acknowledged");
    expect(await post('github', ping.payload, ping.headers)).toMatchObject({ status: 204, replayed: null });
    expect(await post('github', ping.payload, ping.headers)).toMatchObject({ status: 204, replayed: 'true' });

    // the replay survives a restart
    herald = await herald.restart();
    expect(await post('github', issue.payload, delivery)).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(runs()).toBe(2);
  });

  it('takes a Stripe event once per event id, even when a retry differs in pending_webhooks', async () => {
    herald = await testApp({}, { files: examples });
    const event = fixture('stripe', 'a failed invoice payment becomes an agent run per customer').payload as Record<string, unknown>;
    const first = await post('stripe', event);
    expect(first).toMatchObject({ status: 202, replayed: null });
    expect(await post('stripe', event)).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    // Stripe counts the endpoints still to be served in the event it resends: the bytes differ, the delivery is the same.
    // A rendered key names the delivery, so this is a replay, not the 422 an Idempotency-Key header would get
    const resent = await post('stripe', { ...event, pending_webhooks: 7 });
    expect(resent).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(runs()).toBe(1);

    const other = await post('stripe', { ...event, id: 'evt_other' });
    expect(other).toMatchObject({ status: 202, replayed: null });
    expect(runs()).toBe(2);
  });

  it('lets a request Idempotency-Key header win over the mapping template', async () => {
    herald = await testApp({}, { files: examples });
    const issue = fixture('github', 'an opened issue becomes an agent run in the issue\'s own session');
    const delivery = { ...issue.headers!, 'X-GitHub-Delivery': 'd-9' };

    const keyed = await post('github', issue.payload, { ...delivery, 'Idempotency-Key': 'relay-1' });
    expect(keyed).toMatchObject({ status: 202, replayed: null });
    // another header key, the same delivery id: the header decides, so it is processed
    const rekeyed = await post('github', issue.payload, { ...delivery, 'Idempotency-Key': 'relay-2' });
    expect(rekeyed).toMatchObject({ status: 202, replayed: null });
    expect(await post('github', issue.payload, { ...delivery, 'Idempotency-Key': 'relay-1' })).toMatchObject({ body: keyed.body, replayed: 'true' });
    // header-key semantics stay: the same header key with another body is a 422
    expect((await post('github', { ...(issue.payload as object), action: 'reopened' }, { ...delivery, 'Idempotency-Key': 'relay-1' })).status).toBe(422);
    expect(runs()).toBe(2);

    // without the header the template's key (d-9) is used, which no request has claimed yet
    const direct = await post('github', issue.payload, delivery);
    expect(direct).toMatchObject({ status: 202, replayed: null });
    expect(await post('github', issue.payload, delivery)).toMatchObject({ body: direct.body, replayed: 'true' });
    expect(runs()).toBe(3);
  });

  it('claims the key before the transform: a transform with side effects runs once per key', async () => {
    const files = {
      'mappings/orders.yaml': `
- id: order
  match: { path: orders }
  idempotencyKey: "order:{{ id }}"
  messageTemplate: "Order {{ id }}"
  deliver: false
  transform: { module: ticket.mjs }
- id: slow
  match: { path: slow }
  idempotencyKey: "{{ headers.x-delivery }}"
  messageTemplate: "slow"
  deliver: false
  transform: { module: wait.mjs }
`,
      // side effect: one line per call, in a file beside the transforms folder
      'transforms/ticket.mjs': `import fs from 'node:fs';
export default (ctx) => {
  if (ctx.payload.fail) throw new Error('ticket system down');
  fs.appendFileSync(new URL('../tickets.log', import.meta.url), ctx.payload.id + '\\n');
  return { message: 'ticket for order ' + ctx.payload.id };
};`,
      // holds the request until the test writes release.flag
      'transforms/wait.mjs': `import fs from 'node:fs';
export default async () => {
  fs.writeFileSync(new URL('../started.flag', import.meta.url), '');
  while (!fs.existsSync(new URL('../release.flag', import.meta.url))) await new Promise((r) => setTimeout(r, 10));
};`,
    };
    herald = await testApp({ hooks: { transformTimeoutMs: 30_000 } }, { files });
    const tickets = () => fs.readFileSync(path.join(herald!.dir, 'tickets.log'), 'utf8').split('\n').filter(Boolean);

    // a failed transform frees the key: the retry is processed
    expect((await post('orders', { id: 'o-1', fail: true })).status).toBe(500);
    const first = await post('orders', { id: 'o-1' });
    expect(first).toMatchObject({ status: 202, replayed: null });
    expect(await post('orders', { id: 'o-1' })).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect(tickets()).toEqual(['o-1']);
    expect((await herald.gateway.store.runs.get(first.body!.runId))?.message).toBe('ticket for order o-1');

    // a repeat while the first is still in its transform: 409, and the transform is not entered twice
    const pending = post('slow', {}, { 'x-delivery': 'slow-1' });
    await eventually(() => fs.existsSync(path.join(herald!.dir, 'started.flag')));
    fs.rmSync(path.join(herald.dir, 'started.flag'));
    expect(await post('slow', {}, { 'x-delivery': 'slow-1' })).toMatchObject({ status: 409, retryAfter: '1' });
    fs.writeFileSync(path.join(herald.dir, 'release.flag'), '');
    const done = await pending;
    expect(done).toMatchObject({ status: 202, replayed: null });
    expect(await post('slow', {}, { 'x-delivery': 'slow-1' })).toMatchObject({ body: done.body, replayed: 'true' });
    expect(fs.existsSync(path.join(herald.dir, 'started.flag'))).toBe(false);
    expect(runs()).toBe(2);
  });

  it('uses no key when a part renders empty: each such request is processed', async () => {
    const files = {
      'mappings/keyed.yaml': `
- id: keyed
  match: { path: keyed }
  idempotencyKey: "src:{{ headers.x-delivery }}"
  messageTemplate: "hello"
  deliver: false
`,
    };
    herald = await testApp({}, { files });
    expect(await post('keyed', {})).toMatchObject({ status: 202, replayed: null });
    expect(await post('keyed', {})).toMatchObject({ status: 202, replayed: null });
    expect(await post('keyed', {}, { 'x-delivery': '  ' })).toMatchObject({ status: 202, replayed: null });
    expect(runs()).toBe(3);
    // a delivery id a header could not carry (too long) is kept as its sha256, still one per delivery
    const long = 'x'.repeat(300);
    const first = await post('keyed', {}, { 'x-delivery': long });
    expect(await post('keyed', {}, { 'x-delivery': long })).toMatchObject({ body: first.body, replayed: 'true' });
    expect(count("SELECT count(*) AS n FROM idempotency_keys WHERE key LIKE 'sha256:%'")).toBe(1);
    expect(runs()).toBe(4);
  });

  it('replays a signed GitHub redelivery that carries no token', async () => {
    const secret = 'gh-secret-0123456789';
    const files = {
      'mappings/gh.yaml': `
- id: gh
  match: { path: gh }
  auth: { type: github, secret: "${secret}" }
  idempotencyKey: "{{ headers.x-github-delivery }}"
  messageTemplate: "{{ action }} {{ issue.title }}"
  deliver: false
`,
    };
    herald = await testApp({}, { files });
    const body = JSON.stringify({ action: 'opened', issue: { title: 'Broken' } });
    const headers = {
      'x-github-delivery': 'signed-1',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
    };
    const first = await post('gh', body, headers, null);
    expect(first).toMatchObject({ status: 202, replayed: null });
    expect(await post('gh', body, headers, null)).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    // authentication comes first: a wrong signature never reaches the key
    expect((await post('gh', body, { ...headers, 'x-hub-signature-256': 'sha256=00' }, null)).status).toBe(401);
    expect(runs()).toBe(1);
  });

  it('refuses at start a key without {{ }} and a key with a template error, naming the mapping', async () => {
    const attempt = (key: string) =>
      testApp({}, { files: { 'mappings/bad.yaml': `- id: bad\n  match: { path: bad }\n  idempotencyKey: ${JSON.stringify(key)}\n` } }).then(
        (h) => h.stop().then(() => ''),
        (error: Error) => error.message,
      );
    expect(await attempt('always-the-same')).toMatch(/mapping "bad".*idempotencyKey: "always-the-same" has no \{\{ \}\}/);
    expect(await attempt('{{ id + }}')).toMatch(/mapping "bad".*idempotencyKey: template error/);
  });
});
