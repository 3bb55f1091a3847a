import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseUrlEncoded } from '../../src/mappings/payload/form-payload.js';
import { GATEWAY_TOKEN, HOOK_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * Bodies that are not JSON, through mapped hooks: form fields become the payload; signatures
 * are checked over the raw bytes. Twilio's scheme is its documented one
 * (https://www.twilio.com/docs/usage/security#validating-requests), Slack's its v0 signing secret
 * (https://api.slack.com/authentication/verifying-requests-from-slack).
 */
const TWILIO_TOKEN = 'twilio-auth-token-0123456789';
const SLACK_SECRET = 'slack-signing-secret-0123456789';

const echo = { id: 'echo', match: { path: 'echo' }, action: 'wake', textTemplate: '{{ $string($payload) }}' };
const twilio = { id: 'sms', match: { path: 'twilio/sms' }, messageTemplate: 'SMS from {{ From }}: {{ Body }}', deliver: false, auth: { type: 'twilio', secret: TWILIO_TOKEN } };
const slack = { id: 'slash', match: { path: 'slack/command' }, action: 'wake', textTemplate: '{{ command }} {{ text }} by {{ user_name }}', auth: { type: 'slack', secret: SLACK_SECRET } };

async function lastEvent(app: TestApp): Promise<string> {
  const res = await app.request('/admin/events?session=main', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  return ((await res.json()) as { data: { text: string }[] }).data.at(-1)!.text;
}

const withToken = { authorization: `Bearer ${HOOK_TOKEN}` };

describe('form bodies on mapped hooks', () => {
  it('x-www-form-urlencoded fields are the payload; a repeated key is an array', async () => {
    const app = await testApp({ hooks: { mappings: [echo] } });
    const res = await app.request('/hooks/echo', {
      method: 'POST',
      headers: { ...withToken, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: 'a=1&tag=x&tag=y&text=hello+world%21',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(await lastEvent(app))).toEqual({ a: '1', tag: ['x', 'y'], text: 'hello world!' });
    // a field named __proto__ is data, never the payload's prototype
    const parsed = parseUrlEncoded('__proto__=p&x=1');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('p');
  });

  it('multipart/form-data: text fields as strings, files as {filename, size, type}, never their bytes', async () => {
    const app = await testApp({ hooks: { mappings: [echo] } });
    const form = new FormData();
    form.append('subject', 'Invoice');
    form.append('attachment', new Blob(['%PDF-1.4 not really'], { type: 'application/pdf' }), 'invoice.pdf');
    form.append('attachment', new Blob(['hello']), 'note.txt');
    const res = await app.request('/hooks/echo', { method: 'POST', headers: withToken, body: form });
    expect(res.status).toBe(200);
    expect(JSON.parse(await lastEvent(app))).toEqual({
      subject: 'Invoice',
      attachment: [
        { filename: 'invoice.pdf', size: 19, type: 'application/pdf' },
        { filename: 'note.txt', size: 5, type: 'application/octet-stream' },
      ],
    });
  });

  it('keeps the body limit, and answers a broken multipart body with 400', async () => {
    const app = await testApp({ hooks: { mappings: [echo], maxBodyBytes: 64 } });
    const big = await app.request('/hooks/echo', { method: 'POST', headers: { ...withToken, 'content-type': 'application/x-www-form-urlencoded' }, body: `a=${'x'.repeat(100)}` });
    expect(big.status).toBe(413);
    const broken = await app.request('/hooks/echo', { method: 'POST', headers: { ...withToken, 'content-type': 'multipart/form-data; boundary=nope' }, body: 'not multipart' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ ok: false, error: 'invalid multipart/form-data body (check its boundary)' });
  });

  it("/wake and /agent stay JSON whatever the Content-Type; JSON labelled as a form (curl -d's default) is read as JSON", async () => {
    const app = await testApp({ hooks: { mappings: [echo] } });
    const form = { ...withToken, 'content-type': 'application/x-www-form-urlencoded' };
    expect((await app.request('/hooks/wake', { method: 'POST', headers: form, body: '{"text":"from curl -d"}' })).status).toBe(200);
    expect(await app.request('/hooks/agent', { method: 'POST', headers: form, body: 'message=hi' }).then((r) => r.status)).toBe(400);
    const other = await testApp({ hooks: { mappings: [echo] } });
    expect((await other.request('/hooks/echo', { method: 'POST', headers: form, body: '{"a":[1,2]}' })).status).toBe(200);
    expect(JSON.parse(await lastEvent(other))).toEqual({ a: [1, 2] });
  });
});

/** Twilio's signature: base64 HMAC-SHA1 of the URL, then each sorted field name followed by its value */
function twilioSignature(url: string, body: string): string {
  const params = new URLSearchParams(body);
  const names = [...new Set(params.keys())].sort();
  const text = url + names.map((n) => params.getAll(n).sort().map((v) => n + v).join('')).join('');
  return createHmac('sha1', TWILIO_TOKEN).update(text).digest('base64');
}

describe('Twilio signatures', () => {
  const body = 'MessageSid=SM1&From=%2B15555550123&To=%2B15555550100&Body=Hi+there&MediaUrl0=b&MediaUrl0=a';
  const url = 'http://localhost/hooks/twilio/sms';
  const post = (app: TestApp, headers: Record<string, string>, payload = body, path = '/hooks/twilio/sms') =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: payload });

  it('admits a request signed with the auth token, without the hook token', async () => {
    const app = await testApp({ hooks: { mappings: [twilio] } });
    const res = await post(app, { 'x-twilio-signature': twilioSignature(url, body) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    expect((await app.gateway.store.runs.get(runId))?.message).toBe('SMS from +15555550123: Hi there');
  });

  it('refuses a wrong or missing signature, a changed field, or another URL (401)', async () => {
    const app = await testApp({ hooks: { mappings: [twilio] } });
    expect((await post(app, {})).status).toBe(401);
    expect((await post(app, { 'x-twilio-signature': twilioSignature(url, body) }, body.replace('Hi', 'Ho'))).status).toBe(401);
    expect((await post(app, { 'x-twilio-signature': twilioSignature('https://elsewhere.example/hooks/twilio/sms', body) })).status).toBe(401);
  });

  it('auth.url: the public URL Twilio signed, when a proxy changes what herald sees', async () => {
    const publicUrl = 'https://hooks.example.com/hooks/twilio/sms?tenant=7';
    const app = await testApp({ hooks: { mappings: [{ ...twilio, auth: { ...twilio.auth, url: publicUrl } }] } });
    expect((await post(app, { 'x-twilio-signature': twilioSignature(publicUrl, body) })).status).toBe(202);
  });

  it('a JSON body is signed through the bodySHA256 query parameter', async () => {
    const app = await testApp({ hooks: { mappings: [twilio] } });
    const json = JSON.stringify({ From: '+15555550123', Body: 'json' });
    const signedUrl = `${url}?bodySHA256=${createHash('sha256').update(json).digest('hex')}`;
    const sig = createHmac('sha1', TWILIO_TOKEN).update(signedUrl).digest('base64');
    const ok = await app.request(signedUrl.replace('http://localhost', ''), { method: 'POST', headers: { 'content-type': 'application/json', 'x-twilio-signature': sig }, body: json });
    expect(ok.status).toBe(202);
    const tampered = await app.request(signedUrl.replace('http://localhost', ''), { method: 'POST', headers: { 'content-type': 'application/json', 'x-twilio-signature': sig }, body: json.replace('json', 'JSON') });
    expect(tampered.status).toBe(401);
  });
});

describe('Slack signatures', () => {
  const body = 'command=%2Fdeploy&text=api+v2&user_name=ada&team_id=T1';
  const sign = (timestamp: number, payload = body) => `v0=${createHmac('sha256', SLACK_SECRET).update(`v0:${timestamp}:${payload}`).digest('hex')}`;
  const post = (app: TestApp, headers: Record<string, string>, payload = body) =>
    app.request('/hooks/slack/command', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: payload });

  it('admits a v0 signature within five minutes; refuses an old timestamp, a wrong secret or a changed body', async () => {
    const app = await testApp({ hooks: { mappings: [slack] } });
    const now = Math.floor(Date.now() / 1000);
    const ok = await post(app, { 'x-slack-request-timestamp': String(now), 'x-slack-signature': sign(now) });
    expect(ok.status).toBe(200);
    expect(await lastEvent(app)).toBe('/deploy api v2 by ada');
    const old = now - 301;
    expect((await post(app, { 'x-slack-request-timestamp': String(old), 'x-slack-signature': sign(old) })).status).toBe(401);
    expect((await post(app, { 'x-slack-request-timestamp': String(now), 'x-slack-signature': sign(now) }, body.replace('v2', 'v3'))).status).toBe(401);
    const wrong = `v0=${createHmac('sha256', 'another-secret').update(`v0:${now}:${body}`).digest('hex')}`;
    expect((await post(app, { 'x-slack-request-timestamp': String(now), 'x-slack-signature': wrong })).status).toBe(401);
  });
});

describe('forEach', () => {
  const gmail = {
    id: 'each-mail',
    match: { path: 'mail' },
    forEach: 'messages',
    name: 'Mail',
    sessionKey: 'hook:mail:{{messages[0].id}}',
    messageTemplate: 'From {{messages[0].from}} ({{account}})',
    deliver: false,
  };

  it('fans out one run per item, each seeing [item], and answers every runId', async () => {
    const app = await testApp({ hooks: { mappings: [gmail] } });
    const payload = { account: 'a@example.com', messages: [{ id: 'm1', from: 'x@example.com' }, { id: 'm2', from: 'y@example.com' }, { id: 'm3', from: 'z@example.com' }] };
    const res = await app.request('/hooks/mail', { method: 'POST', headers: withToken, body: JSON.stringify(payload) });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { ok: boolean; runId: string; runIds: string[]; dispatched: number };
    expect(body).toMatchObject({ ok: true, dispatched: 3 });
    expect(body.runIds).toHaveLength(3);
    expect(body.runId).toBe(body.runIds[0]);
    const runs = await Promise.all(body.runIds.map((id) => app.gateway.store.runs.get(id)));
    expect(runs.map((r) => [r?.sessionKey, r?.message])).toEqual([
      ['hook:mail:m1', 'From x@example.com (a@example.com)'],
      ['hook:mail:m2', 'From y@example.com (a@example.com)'],
      ['hook:mail:m3', 'From z@example.com (a@example.com)'],
    ]);
  });

  it('a partly refused batch starts the admitted items and answers OpenClaw\'s non-2xx with at most five reasons, each naming its item', async () => {
    const app = await testApp({ hooks: { mappings: [{ ...gmail, model: '{{messages[0].model}}' }] } });
    const messages = [{ id: 'm0' }, { id: 'm1', model: 'no/such' }, { id: 'm2' }, ...[3, 4, 5, 6, 7].map((i) => ({ id: `m${i}`, model: 'nope' }))];
    const send = (key: string) => app.request('/hooks/mail', { method: 'POST', headers: { ...withToken, 'idempotency-key': key }, body: JSON.stringify({ account: 'a@example.com', messages }) });
    const res = await send('batch-1');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { ok: boolean; error: string; runIds: string[]; errors: string[] };
    expect(body).toEqual({
      ok: false,
      error: 'hook fan-out incomplete: 2/8 dispatched, 6 failed',
      runIds: [expect.any(String), expect.any(String)],
      errors: [1, 3, 4, 5, 6].map((i) => expect.stringMatching(new RegExp(`^item ${i}: model "(no/such|nope)" is not a known model`))),
    });
    const runs = await Promise.all(body.runIds.map((id) => app.gateway.store.runs.get(id)));
    expect(runs.map((r) => r?.sessionKey)).toEqual(['hook:mail:m0', 'hook:mail:m2']);
    // the sender's redelivery is answered from the stored answer: the admitted items do not run twice
    const again = await send('batch-1');
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual(body);
    const listed = await app.request('/admin/runs?limit=50', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(((await listed.json()) as { data: unknown[] }).data).toHaveLength(2);
  });

  it('one item answers as a single run; none (missing, empty, not an array) is 204', async () => {
    const app = await testApp({ hooks: { mappings: [gmail] } });
    const post = (payload: unknown) => app.request('/hooks/mail', { method: 'POST', headers: withToken, body: JSON.stringify(payload) });
    const one = await post({ messages: [{ id: 'm1' }] });
    expect(Object.keys((await one.json()) as object)).toEqual(['ok', 'runId']);
    for (const payload of [{}, { messages: [] }, { messages: 'm1' }, []]) expect((await post(payload)).status).toBe(204);
  });

  it('caps the fan-out at hooks.maxForEachItems, logging what it dropped', async () => {
    const app = await testApp({ hooks: { mappings: [gmail], maxForEachItems: 2 } });
    const res = await app.request('/hooks/mail', { method: 'POST', headers: withToken, body: JSON.stringify({ messages: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }] }) });
    expect(((await res.json()) as { runIds: string[] }).runIds).toHaveLength(2);
    expect(app.logs.some((l) => l.mapping === 'each-mail' && l.dropped === 2)).toBe(true);
  });

  it('refuses a nested or prototype key at load', async () => {
    await expect(testApp({ hooks: { mappings: [{ ...gmail, forEach: 'a.b' }] } })).rejects.toThrow(/forEach \(mapping "each-mail"\): a top-level payload key/);
    await expect(testApp({ hooks: { mappings: [{ ...gmail, forEach: '__proto__' }] } })).rejects.toThrow(/forEach \(mapping "each-mail"\): not a prototype key/);
  });
});
