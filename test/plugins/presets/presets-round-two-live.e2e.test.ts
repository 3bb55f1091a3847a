import { createHash, createHmac, generateKeyPairSync, sign as ecdsaSign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import type { FakeServer } from '../../helpers/fake-server.js';
import { fakeModel, startFakeOpenAI } from '../../models/fake-openai.js';

/**
 * The second round of presets live: herald started with one `hooks.presets` line per sender,
 * each receiving the sender's published example (its fixture) over the app, signed as the
 * sender's documentation says (each signer below cites it), or by the sender's own library where
 * one verifies (SendGrid's @sendgrid/eventwebhook checks what herald accepts). A signed delivery
 * starts a run whose message reaches the model, a repeat is replayed, a wrong signature is 401,
 * noise is 204, and each handshake is answered without a run.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const sendgridKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const SENDGRID_KEY = sendgridKeys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

const secrets = {
  grafana: 'grafana-contact-point-token-01',
  bitbucket: 'bitbucket-webhook-secret-01',
  msgraph: 'graph-client-state-0123456789',
  sendgrid: SENDGRID_KEY,
  mailgun: 'key-mailgun-signing-0123456789',
  netlify: 'netlify-jws-secret-0123456789',
  notion: 'secret_notionVerificationToken0123456789',
  datadog: 'datadog-webhook-token-0123456789',
} as const;
type Sender = keyof typeof secrets;

const hmacHex = (key: string, data: string) => createHmac('sha256', key).update(data).digest('hex');
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** each sender's proof over a body, as its documentation says */
const signers: Record<Sender, (body: string, secret: string) => { headers?: Record<string, string>; body?: string }> = {
  // Grafana's webhook contact point, Authorization header with scheme Bearer
  // (https://grafana.com/docs/grafana/latest/alerting/configure-notifications/manage-contact-points/integrations/webhook-notifier/#settings)
  grafana: (_body, secret) => ({ headers: { authorization: `Bearer ${secret}` } }),
  datadog: (_body, secret) => ({ headers: { authorization: `Bearer ${secret}` } }),
  // https://support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/#Secure-webhooks: X-Hub-Signature sha256=<hex HMAC of the body>
  bitbucket: (body, secret) => ({ headers: { 'x-hub-signature': `sha256=${hmacHex(secret, body)}` } }),
  // Graph signs nothing: each notification carries the subscription's clientState
  msgraph: (body, secret) => {
    const payload = JSON.parse(body) as { value: Record<string, unknown>[] };
    return { body: JSON.stringify({ value: payload.value.map((n) => ({ ...n, clientState: secret })) }) };
  },
  // https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features:
  // ECDSA (P-256, SHA-256) over the timestamp header's value then the body, base64 DER
  sendgrid: (body) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = ecdsaSign('sha256', Buffer.from(timestamp + body), { key: sendgridKeys.privateKey, dsaEncoding: 'der' }).toString('base64');
    return { headers: { 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp } };
  },
  // https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks: hex HMAC-SHA256 of timestamp then token
  mailgun: (body, secret) => {
    const payload = JSON.parse(body) as Record<string, unknown>;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const token = createHash('sha256').update(body).digest('hex').slice(0, 50);
    return { body: JSON.stringify({ ...payload, signature: { timestamp, token, signature: hmacHex(secret, timestamp + token) } }) };
  },
  // https://docs.netlify.com/site-deploys/deploy-notifications/#payload-signature: a JWS, HS256, claims iss "netlify" and sha256 of the body
  netlify: (body, secret) => {
    const signing = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ iss: 'netlify', sha256: createHash('sha256').update(body).digest('hex') })}`;
    return { headers: { 'x-webhook-signature': `${signing}.${createHmac('sha256', secret).update(signing).digest('base64url')}` } };
  },
  // https://developers.notion.com/reference/webhooks#step-3-validating-event-payloads-recommended: sha256=<hex HMAC of the body> with the verification token
  notion: (body, secret) => ({ headers: { 'x-notion-signature': `sha256=${hmacHex(secret, body)}` } }),
};

/** per sender: the fixture case that starts a run, one the preset skips (204) */
const cases: Record<Sender, { accepted: number; skipped?: number }> = {
  grafana: { accepted: 0 },
  bitbucket: { accepted: 0, skipped: 4 },
  msgraph: { accepted: 1 },
  sendgrid: { accepted: 0, skipped: 1 },
  mailgun: { accepted: 0, skipped: 1 },
  netlify: { accepted: 0, skipped: 2 },
  notion: { accepted: 1, skipped: 4 },
  datadog: { accepted: 1, skipped: 3 },
};

interface FixtureCase {
  headers?: Record<string, string>;
  payload: unknown;
  expect: Record<string, unknown>;
}
const fixture = (name: Sender, index: number): FixtureCase => JSON.parse(fs.readFileSync(path.join(root, 'plugins', name, 'fixtures', `${name}.json`), 'utf8'))[index];

/** a fixture case as the sender sends it, its proof made with `secret` */
function delivery(name: Sender, index: number, secret: string = secrets[name]) {
  const { headers = {}, payload } = fixture(name, index);
  const unsignedBody = JSON.stringify(payload);
  const signed = signers[name](unsignedBody, secret);
  // the proof's headers replace the fixture's of the same name (a timestamp it carried)
  const proof = Object.keys(signed.headers ?? {});
  const kept = Object.fromEntries(Object.entries(headers).filter(([k]) => !proof.includes(k.toLowerCase())));
  return { body: signed.body ?? unsignedBody, headers: { ...kept, ...signed.headers } };
}

let herald: TestApp;
let model: FakeServer;
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };

async function post(name: string, { body, headers }: { body: string; headers: Record<string, string> }, query = '') {
  const res = await herald.request(`/hooks/${name}${query}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), replayed: res.headers.get('idempotent-replayed'), text, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, any>) : null };
}

beforeAll(async () => {
  model = await startFakeOpenAI('on it');
  herald = await testApp({
    ...fakeModel(model),
    hooks: { presets: (Object.keys(secrets) as Sender[]).map((name) => ({ name, secret: secrets[name], deliver: false })) },
  });
});

afterAll(async () => {
  await herald?.stop();
  await model?.close();
});

const prompts = () =>
  model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.json.messages as { role: string; content: string }[]).at(-1)!.content);

describe.each(Object.keys(cases) as Sender[])('preset %s, live', (name) => {
  const { accepted, skipped } = cases[name];

  it('accepts a delivery proven as the sender proves it; its message reaches the model; a repeat is replayed', async () => {
    const signed = delivery(name, accepted);
    const first = await post(name, signed);
    expect(first).toMatchObject({ status: 202, body: { ok: true, runId: expect.any(String) } });
    const run = await eventually(async () => {
      const found = await herald.gateway.store.runs.get(first.body!.runId);
      return found?.status === 'succeeded' ? found : undefined;
    });
    const expected = fixture(name, accepted).expect;
    if (typeof expected.message === 'string') expect(run.message).toBe(expected.message);
    expect(prompts().some((prompt) => prompt.includes(run.message))).toBe(true);
    expect(await post(name, signed)).toMatchObject({ status: 202, replayed: 'true', body: { runId: first.body!.runId } });
  });

  it('refuses a wrong proof with 401', async () => {
    const wrong = name === 'sendgrid' ? delivery(name, accepted) : delivery(name, accepted, `${secrets[name]}-not`);
    if (name === 'sendgrid') wrong.body = wrong.body.replace('example@test.com', 'other@test.com');
    expect((await post(name, wrong)).status).toBe(401);
  });

  it.skipIf(skipped === undefined)('answers what the preset skips with 204', async () => {
    expect((await post(name, delivery(name, skipped!))).status).toBe(204);
  });
});

describe('handshakes and libraries', () => {
  it("SendGrid's own library verifies what herald accepts", async () => {
    const signed = delivery('sendgrid', 2);
    const ew = new EventWebhook();
    expect(ew.verifySignature(ew.convertPublicKeyToECDSA(SENDGRID_KEY), signed.body, signed.headers['x-twilio-email-event-webhook-signature']!, signed.headers['x-twilio-email-event-webhook-timestamp']!)).toBe(true);
    expect((await post('sendgrid', signed)).status).toBe(202);
  });

  it("answers Microsoft Graph's validation request with its token, as text, and starts no run", async () => {
    const runsBefore = prompts().length;
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 2d1e5cb4';
    const res = await post('msgraph', { body: '', headers: { 'content-type': 'text/plain; charset=utf-8' } }, `?validationToken=${encodeURIComponent(token)}`);
    expect(res).toMatchObject({ status: 200, text: token });
    expect(res.type).toMatch(/^text\/plain/);
    expect(prompts().length).toBe(runsBefore);
  });

  it("answers Notion's unsigned verification request, keeps its token for the operator, and starts no run", async () => {
    const token = 'secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl';
    const res = await post('notion', { body: JSON.stringify({ verification_token: token }), headers: { 'content-type': 'application/json' } });
    expect(res).toMatchObject({ status: 200, text: '' });
    const receipt = await eventually(async () => {
      const list = ((await (await herald.request('/admin/receipts', { headers: admin })).json()) as { data: { id: string; mappingId: string | null }[] }).data;
      return list.find((r) => r.mappingId === 'notion-verification');
    });
    const detail = (await (await herald.request(`/admin/receipts/${receipt.id}`, { headers: admin })).json()) as { payload: { body: string } | null };
    expect(JSON.parse(detail.payload!.body)).toEqual({ verification_token: token });
    // anything else unsigned is refused
    expect((await post('notion', { body: JSON.stringify({ verification_token: token, type: 'page.created' }), headers: { 'content-type': 'application/json' } })).status).toBe(401);
  });

  it('logs no secret', () => {
    for (const secret of Object.values(secrets)) expect(herald.rawLogs()).not.toContain(secret);
  });
});
