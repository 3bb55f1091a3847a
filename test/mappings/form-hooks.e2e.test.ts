import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, HOOK_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * Mapped hooks with bodies that are not JSON, on a gateway: the fields reach the mapping as its
 * payload, the limits hold, a signature admits without the hook token; and forEach fans a payload
 * out into runs. The parsing and the signatures themselves are tested as functions in
 * form-bodies.test.ts.
 */
const TWILIO_TOKEN = 'twilio-auth-token-0123456789';
const SLACK_SECRET = 'slack-signing-secret-0123456789';

const echo = { id: 'echo', match: { path: 'echo' }, action: 'wake', textTemplate: '{{ $string($payload) }}' };
const twilio = { id: 'sms', match: { path: 'twilio/sms' }, messageTemplate: 'SMS from {{ From }}: {{ Body }}', deliver: false, auth: { type: 'twilio', secret: TWILIO_TOKEN } };
const slack = { id: 'slash', match: { path: 'slack/command' }, action: 'wake', textTemplate: '{{ command }} {{ text }} by {{ user_name }}', auth: { type: 'slack', secret: SLACK_SECRET } };

/** Twilio's signature: base64 HMAC-SHA1 of the URL, then each sorted field name followed by its value */
function twilioSignature(url: string, body: string): string {
  const params = new URLSearchParams(body);
  const names = [...new Set(params.keys())].sort();
  const text = url + names.map((n) => params.getAll(n).sort().map((v) => n + v).join('')).join('');
  return createHmac('sha1', TWILIO_TOKEN).update(text).digest('base64');
}

describe('a mapped hook with a form body', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await testApp({ hooks: { mappings: [echo, twilio, slack], maxBodyBytes: 1024 } });
  });
  const withToken = { authorization: `Bearer ${HOOK_TOKEN}` };
  const form = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
  const lastEvent = async (): Promise<string> => {
    const res = await app.request('/admin/events?session=main', { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    // newest first
    return ((await res.json()) as { data: { text: string }[] }).data[0]!.text;
  };

  it('gets the fields as its payload, a multipart body too', async () => {
    expect((await app.request('/hooks/echo', { method: 'POST', headers: { ...withToken, ...form }, body: 'a=1&tag=x&tag=y' })).status).toBe(200);
    expect(JSON.parse(await lastEvent())).toEqual({ a: '1', tag: ['x', 'y'] });
    const multipart = new FormData();
    multipart.append('subject', 'Invoice');
    multipart.append('attachment', new Blob(['hello']), 'note.txt');
    expect((await app.request('/hooks/echo', { method: 'POST', headers: withToken, body: multipart })).status).toBe(200);
    expect(JSON.parse(await lastEvent())).toEqual({ subject: 'Invoice', attachment: { filename: 'note.txt', size: 5, type: 'application/octet-stream' } });
  });

  it('keeps the body limit, and answers a broken multipart body with 400', async () => {
    const big = await app.request('/hooks/echo', { method: 'POST', headers: { ...withToken, ...form }, body: `a=${'x'.repeat(1100)}` });
    expect(big.status).toBe(413);
    const broken = await app.request('/hooks/echo', { method: 'POST', headers: { ...withToken, 'content-type': 'multipart/form-data; boundary=nope' }, body: 'not multipart' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ ok: false, error: 'invalid multipart/form-data body (check its boundary)' });
  });

  it("/wake and /agent stay JSON whatever the Content-Type; JSON labelled as a form (curl -d's default) is read as JSON", async () => {
    expect((await app.request('/hooks/wake', { method: 'POST', headers: { ...withToken, ...form }, body: '{"text":"from curl -d"}' })).status).toBe(200);
    expect((await app.request('/hooks/agent', { method: 'POST', headers: { ...withToken, ...form }, body: 'message=hi' })).status).toBe(400);
    expect((await app.request('/hooks/echo', { method: 'POST', headers: { ...withToken, ...form }, body: '{"a":[1,2]}' })).status).toBe(200);
    expect(JSON.parse(await lastEvent())).toEqual({ a: [1, 2] });
  });

  it('is admitted by its signature instead of the hook token (Twilio, Slack), and refused without one', async () => {
    const body = 'From=%2B15555550123&Body=Hi+there';
    const signed = await app.request('/hooks/twilio/sms', { method: 'POST', headers: { ...form, 'x-twilio-signature': twilioSignature('http://localhost/hooks/twilio/sms', body) }, body });
    expect(signed.status).toBe(202);
    const { runId } = (await signed.json()) as { runId: string };
    expect((await app.gateway.store.runs.get(runId))?.message).toBe('SMS from +15555550123: Hi there');
    expect((await app.request('/hooks/twilio/sms', { method: 'POST', headers: form, body })).status).toBe(401);
    const slash = 'command=%2Fdeploy&text=api+v2&user_name=ada';
    const now = Math.floor(Date.now() / 1000);
    const slackSignature = `v0=${createHmac('sha256', SLACK_SECRET).update(`v0:${now}:${slash}`).digest('hex')}`;
    const admitted = await app.request('/hooks/slack/command', { method: 'POST', headers: { ...form, 'x-slack-request-timestamp': String(now), 'x-slack-signature': slackSignature }, body: slash });
    expect(admitted.status).toBe(200);
    expect(await lastEvent()).toBe('/deploy api v2 by ada');
  });
});

describe('forEach', () => {
  const withToken = { authorization: `Bearer ${HOOK_TOKEN}` };
  const gmail = {
    id: 'each-mail',
    match: { path: 'mail' },
    forEach: 'messages',
    name: 'Mail',
    sessionKey: 'hook:mail:{{messages[0].id}}',
    messageTemplate: 'From {{messages[0].from}} ({{account}})',
    deliver: false,
  };

  // one gateway for the fan-outs that share a config; the cap sits above the largest of them
  let app: TestApp;
  beforeAll(async () => {
    app = await testApp({ hooks: { mappings: [gmail], maxForEachItems: 8 } });
  });

  it('fans out one run per item, each seeing [item], and answers every runId', async () => {
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
    const post = (payload: unknown) => app.request('/hooks/mail', { method: 'POST', headers: withToken, body: JSON.stringify(payload) });
    const one = await post({ messages: [{ id: 'm1' }] });
    expect(Object.keys((await one.json()) as object)).toEqual(['ok', 'runId']);
    for (const payload of [{}, { messages: [] }, { messages: 'm1' }, []]) expect((await post(payload)).status).toBe(204);
  });

  it('caps the fan-out at hooks.maxForEachItems, logging what it dropped', async () => {
    const messages = Array.from({ length: 10 }, (_, id) => ({ id }));
    const res = await app.request('/hooks/mail', { method: 'POST', headers: withToken, body: JSON.stringify({ messages }) });
    expect(((await res.json()) as { runIds: string[] }).runIds).toHaveLength(8);
    expect(app.logs.some((l) => l.mapping === 'each-mail' && l.dropped === 2)).toBe(true);
  });

  it('refuses a nested or prototype key at load', async () => {
    await expect(testApp({ hooks: { mappings: [{ ...gmail, forEach: 'a.b' }] } })).rejects.toThrow(/forEach \(mapping "each-mail"\): a top-level payload key/);
    await expect(testApp({ hooks: { mappings: [{ ...gmail, forEach: '__proto__' }] } })).rejects.toThrow(/forEach \(mapping "each-mail"\): not a prototype key/);
  });
});
