import { createHmac, generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyKey } from 'discord-interactions';
import { Signature as HubSpotSignature } from '@hubspot/api-client/lib/src/utils/signature.js';
import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { completion, fakeModel } from '../../models/fake-openai.js';

/**
 * The presets of issue 74's fifth part live, each from one `hooks.presets` line, each fixture
 * sent over the app's fetch signed as its sender signs: by the sender's own library where one
 * exists (@hubspot/api-client signs HubSpot's requests; discord-interactions verifies what herald
 * accepted), by Node's crypto exactly as the sender's documentation says otherwise (the
 * verifiers cite each page). A signed delivery starts a run whose message reaches the model, a
 * repeat is replayed, a wrong or missing signature is 401, the noise is 204, the handshakes are
 * answered.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const TWILIO_AUTH_TOKEN = 'twilio-auth-token-0123456789';
const TWILIO_SHARED_KEY = 'twilio-shared-key-secret-0123456789';
const DISCORD_PUBLIC_KEY = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');

const secrets: Record<string, string> = {
  zoom: 'zoom-secret-token-0123456789',
  intercom: 'intercom-client-secret-0123456789',
  hubspot: 'hubspot-client-secret-0123456789',
  calendly: 'calendly-signing-key-0123456789',
  vercel: 'vercel-webhook-secret-0123456789',
  zendesk: 'zendesk-signing-secret-0123456789',
  typeform: 'typeform-webhook-secret-0123456789',
  cloudflare: 'cloudflare-webhook-secret-0123456789',
};

const mac = (hash: 'sha1' | 'sha256', key: string, data: string) => createHmac(hash, key).update(data).digest();
const nowS = () => String(Math.floor(Date.now() / 1000));

/** each sender's signature headers over a body, as its documentation (or library) says; `url` for HubSpot, which signs it */
const sign: Record<string, (body: string, secret: string, url: string) => Record<string, string>> = {
  // https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events
  zoom: (body, secret) => {
    const ts = nowS();
    return { 'x-zm-request-timestamp': ts, 'x-zm-signature': `v0=${mac('sha256', secret, `v0:${ts}:${body}`).toString('hex')}` };
  },
  // https://developers.intercom.com/intercom-api-reference/v1.0/reference/signed-notifications
  intercom: (body, secret) => ({ 'x-hub-signature': `sha1=${mac('sha1', secret, body).toString('hex')}` }),
  // @hubspot/api-client's own v3 signature
  hubspot: (body, secret, url) => {
    const timestamp = Date.now();
    return {
      'x-hubspot-request-timestamp': String(timestamp),
      'x-hubspot-signature-v3': HubSpotSignature.getSignature('POST', 'v3', { signature: '', clientSecret: secret, requestBody: body, url, timestamp }),
    };
  },
  // https://developer.calendly.com/api-docs/overview/webhooks/webhook-signatures
  calendly: (body, secret) => {
    const t = nowS();
    return { 'calendly-webhook-signature': `t=${t},v1=${mac('sha256', secret, `${t}.${body}`).toString('hex')}` };
  },
  // https://vercel.com/docs/webhooks
  vercel: (body, secret) => ({ 'x-vercel-signature': mac('sha1', secret, body).toString('hex') }),
  // https://developer.zendesk.com/documentation/webhooks/verifying/: base64(HMACSHA256(TIMESTAMP + BODY))
  zendesk: (body, secret) => {
    const timestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return { 'x-zendesk-webhook-signature-timestamp': timestamp, 'x-zendesk-webhook-signature': mac('sha256', secret, timestamp + body).toString('base64') };
  },
  // https://www.typeform.com/developers/webhooks/secure-your-webhooks/
  typeform: (body, secret) => ({ 'typeform-signature': `sha256=${mac('sha256', secret, body).toString('base64')}` }),
  // https://developers.cloudflare.com/notifications/get-started/configure-webhooks/: the secret as it is
  cloudflare: (_body, secret) => ({ 'cf-webhook-auth': secret }),
};

/** per preset: the fixture case that starts a run, and one it skips */
const cases: Record<string, { accepted: number; skipped: number }> = {
  zoom: { accepted: 0, skipped: 3 },
  intercom: { accepted: 0, skipped: 3 },
  hubspot: { accepted: 0, skipped: 1 },
  calendly: { accepted: 0, skipped: 2 },
  vercel: { accepted: 0, skipped: 2 },
  zendesk: { accepted: 0, skipped: 2 },
  typeform: { accepted: 0, skipped: 1 },
  cloudflare: { accepted: 0, skipped: 1 },
};

interface FixtureCase {
  headers?: Record<string, string>;
  payload: unknown;
  expect: Record<string, any>;
}
const fixture = (name: string, index: number): FixtureCase => JSON.parse(fs.readFileSync(path.join(root, 'plugins', name, 'fixtures', `${name}.json`), 'utf8'))[index];

let herald: TestApp;
let model: FakeServer;
let release: () => void = () => {};
let held: Promise<void> | undefined;

beforeAll(async () => {
  // the model answers at once, or only once released while `held` is set (to pass replyWaitMs without a timing)
  model = await startFakeServer(async () => {
    await held;
    return { body: completion('on it') };
  });
  herald = await testApp({
    ...fakeModel(model),
    hooks: {
      mappingsDir: './no-mappings',
      presets: [
        ...Object.entries(secrets).map(([name, secret]) => ({ name, secret, deliver: false })),
        { name: 'discord', publicKey: DISCORD_PUBLIC_KEY, replyWaitMs: 2900, deliver: false },
        { name: 'twilio', secret: TWILIO_AUTH_TOKEN, sharedKey: TWILIO_SHARED_KEY, replyWaitMs: 14000, deliver: false },
      ],
    },
  });
});

afterAll(async () => {
  release();
  await herald?.stop();
  await model?.close();
});

const url = (name: string) => `${herald.origin}/hooks/${name}`;

async function post(name: string, body: string, headers: Record<string, string>) {
  const res = await herald.request(url(name), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), contentType: res.headers.get('content-type'), text, json: text ? JSON.parse(text) : null };
}

/** a fixture case as its sender sends it: its headers, the body signed with `secret` */
function delivery(name: string, index: number, secret = secrets[name]!) {
  const { headers = {}, payload } = fixture(name, index);
  const body = JSON.stringify(payload);
  return { body, headers: { ...headers, ...sign[name]!(body, secret, url(name)) } };
}

/** the user messages the model received */
const prompts = () => model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.json.messages as { content: string }[]).at(-1)!.content);

describe.each(Object.keys(cases))('preset %s, live', (name) => {
  const { accepted, skipped } = cases[name]!;

  it('accepts a delivery signed as the sender signs it; its message reaches the model; a repeat is replayed', async () => {
    const signed = delivery(name, accepted);
    const first = await post(name, signed.body, signed.headers);
    expect(first.status).toBe(202);
    const expected = fixture(name, accepted).expect;
    await expect.poll(() => prompts().some((prompt) => prompt.includes(expected.message))).toBe(true);
    const run = await herald.gateway.store.runs.get(first.json.runId);
    expect(run).toMatchObject({ sessionKey: expected.sessionKey });
    const again = await post(name, signed.body, signed.headers);
    expect(again).toMatchObject({ status: 202, replayed: 'true', json: { runId: first.json.runId } });
  });

  it('refuses a wrong or a missing signature with 401, and a changed byte', async () => {
    const good = delivery(name, accepted);
    const wrong = delivery(name, accepted, 'not-the-secret');
    expect((await post(name, wrong.body, wrong.headers)).status).toBe(401);
    expect((await post(name, good.body, fixture(name, accepted).headers ?? {})).status).toBe(401);
    if (name !== 'cloudflare') expect((await post(name, `${good.body} `, good.headers)).status).toBe(401);
  });

  it('answers what the preset skips with 204', async () => {
    const noise = delivery(name, skipped);
    expect((await post(name, noise.body, noise.headers)).status).toBe(204);
  });
});

describe('handshakes, live', () => {
  it("zoom: endpoint.url_validation is answered with plainToken and its HMAC-SHA256 with the Secret Token, as Zoom's docs compute it", async () => {
    const validation = delivery('zoom', 2);
    const answer = await post('zoom', validation.body, validation.headers);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: mac('sha256', secrets.zoom!, 'qgg8vlvZRS6UYooatFL8Aw').toString('hex') });
  });

  it('intercom: the ping notification is answered 200', async () => {
    const ping = delivery('intercom', 2);
    expect((await post('intercom', ping.body, ping.headers)).status).toBe(200);
  });
});

describe('discord interactions, live', () => {
  const signed = (payload: unknown, key = privateKey) => {
    const body = JSON.stringify(payload);
    const timestamp = nowS();
    const signature = ed25519Sign(null, Buffer.from(timestamp + body), key).toString('hex');
    return { body, headers: { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp } };
  };

  it('answers PING with PONG; discord-interactions accepts the request herald accepted', async () => {
    const ping = signed(fixture('discord', 0).payload);
    const answer = await post('discord', ping.body, ping.headers);
    expect(answer).toMatchObject({ status: 200, json: { type: 1 } });
    expect(answer.contentType).toBe('application/json');
    expect(await verifyKey(ping.body, ping.headers['x-signature-ed25519'], ping.headers['x-signature-timestamp'], DISCORD_PUBLIC_KEY)).toBe(true);
  });

  it('answers a slash command with the reply in place (type 4) when it is ready in time', async () => {
    const command = signed(fixture('discord', 1).payload);
    const answer = await post('discord', command.body, command.headers);
    expect(answer).toMatchObject({ status: 200, json: { type: 4, data: { content: 'on it', allowed_mentions: { parse: [] } } } });
    expect(prompts().some((prompt) => prompt.includes('Discord /cardsearch from Mason'))).toBe(true);
  });

  it('defers (type 5) a command whose reply is not ready in time; autocomplete is 204; a bad signature is 401', async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const command = signed({ ...(fixture('discord', 1).payload as object), id: '786008729715212339' });
    expect(await post('discord', command.body, command.headers)).toMatchObject({ status: 200, json: { type: 5 } });
    release();
    held = undefined;
    const autocomplete = signed(fixture('discord', 3).payload);
    expect((await post('discord', autocomplete.body, autocomplete.headers)).status).toBe(204);
    const forged = signed(fixture('discord', 1).payload, generateKeyPairSync('ed25519').privateKey);
    expect((await post('discord', forged.body, forged.headers)).status).toBe(401);
  });
});

describe('hubspot, by its own library', () => {
  it('what herald accepted passes @hubspot/api-client Signature.isValid too', async () => {
    const { body, headers } = delivery('hubspot', 0);
    const changed = body.replace('"eventId":1', '"eventId":11');
    const resigned = { ...headers, ...sign.hubspot!(changed, secrets.hubspot!, url('hubspot')) };
    expect((await post('hubspot', changed, resigned)).status).toBe(202);
    expect(
      HubSpotSignature.isValid({
        signatureVersion: 'v3',
        signature: resigned['x-hubspot-signature-v3']!,
        clientSecret: secrets.hubspot!,
        requestBody: changed,
        url: url('hubspot'),
        timestamp: Number(resigned['x-hubspot-request-timestamp']),
      }),
    ).toBe(true);
  });
});

describe('twilio with a Webhook Setting, by its own library', () => {
  const form = (fixture('twilio', 0) as unknown as { form: string }).form;
  const params = Object.fromEntries(new URLSearchParams(form));
  const sms = (headers: Record<string, string>) =>
    herald.request(url('twilio'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: form });

  it('an SMS the twilio library signs with the SharedKey (HMAC_SHA256) is answered; twilio.validateRequest accepts it; without the settings header it is 401', async () => {
    const signature = getExpectedTwilioSignature(TWILIO_SHARED_KEY, url('twilio'), params, 'HMAC_SHA256');
    const answered = await sms({ 'x-twilio-signature': signature, 'x-twilio-webhooks-signature-settings': 'key=SK0123456789,algorithm=HMAC_SHA256' });
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('<Message>on it</Message>');
    expect(validateRequest(TWILIO_SHARED_KEY, signature, url('twilio'), params, 'HMAC_SHA256')).toBe(true);
    expect((await sms({ 'x-twilio-signature': signature })).status).toBe(401);
    // the auth token's own HMAC-SHA1, as before
    expect((await sms({ 'x-twilio-signature': getExpectedTwilioSignature(TWILIO_AUTH_TOKEN, url('twilio'), params) })).status).toBe(200);
  });
});

describe('secrets', () => {
  it('logs none', () => {
    for (const secret of [...Object.values(secrets), TWILIO_AUTH_TOKEN, TWILIO_SHARED_KEY]) expect(herald.rawLogs()).not.toContain(secret);
  });
});
