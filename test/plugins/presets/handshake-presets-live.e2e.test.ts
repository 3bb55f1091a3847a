import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { completion } from '../../models/fake-openai.js';

/**
 * The handshake and synchronous presets live: slack, meta and twilio from one `hooks.presets`
 * line each, their fixtures sent over a socket and signed as each sender signs them.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const SLACK = 'slack-signing-secret-0123456789';
const META = 'meta-app-secret-0123456789';
const META_VERIFY = 'meta-verify-token-0123456789';
const TWILIO = 'twilio-auth-token-0123456789';

interface FixtureCase {
  headers?: Record<string, string>;
  payload?: unknown;
  form?: string;
}
const fixture = (name: string, index: number): FixtureCase => JSON.parse(fs.readFileSync(path.join(root, 'plugins', name, 'fixtures', `${name}.json`), 'utf8'))[index];
const bodyOf = (c: FixtureCase) => (c.form !== undefined ? c.form : JSON.stringify(c.payload));
const typeOf = (c: FixtureCase) => (c.form !== undefined ? 'application/x-www-form-urlencoded' : 'application/json');

/** https://api.slack.com/authentication/verifying-requests-from-slack */
const slackSignature = (body: string, secret = SLACK) => {
  const ts = String(Math.floor(Date.now() / 1000));
  return { 'x-slack-request-timestamp': ts, 'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}` };
};
/** https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads */
const metaSignature = (body: string, secret = META) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` });
/** https://www.twilio.com/docs/usage/security#validating-requests: the URL, then each sorted form field's name and value */
const twilioSignature = (url: string, form: string, secret = TWILIO) => {
  const params = [...new URLSearchParams(form).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { 'x-twilio-signature': createHmac('sha1', secret).update(url + params.map(([k, v]) => k + v).join('')).digest('base64') };
};

let herald: TestApp | undefined;
let fakes: FakeServer[] = [];
afterEach(async () => {
  await herald?.stop();
  for (const fake of fakes) await fake.close();
  herald = undefined;
  fakes = [];
});

/** a model that answers at once, or only once released (to pass waitMs deterministically) */
async function model(answer: string, gate?: Promise<void>): Promise<FakeServer> {
  const fake = await startFakeServer(async () => {
    await gate;
    return { body: completion(answer) };
  });
  fakes.push(fake);
  return fake;
}

async function start(presets: unknown[], modelUrl: string): Promise<TestApp> {
  herald = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: `${modelUrl}/v1`, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/m' } },
    hooks: { presets, mappingsDir: './no-mappings' },
  });
  return herald;
}

const send = (h: TestApp, hookPath: string, c: FixtureCase, sign: (body: string) => Record<string, string>) => {
  const body = bodyOf(c);
  return h.request(`${h.origin}/hooks/${hookPath}`, { method: 'POST', headers: { 'content-type': typeOf(c), ...c.headers, ...sign(body) }, body });
};

describe('slack preset, live', () => {
  it('answers the handshake, takes a signed event once, skips a retry, refuses a bad signature, acknowledges a slash command', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fake = await model('It is noon.', released);
    const h = await start([{ name: 'slack', secret: SLACK, deliver: false }], fake.url);

    const handshake = await send(h, 'slack', fixture('slack', 0), slackSignature);
    expect(handshake.status).toBe(200);
    expect(await handshake.text()).toBe('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');

    const event = fixture('slack', 1);
    const first = await send(h, 'slack', event, slackSignature);
    expect(first.status).toBe(202);
    const { runId } = (await first.json()) as { runId: string };
    const again = await send(h, 'slack', event, slackSignature);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toMatchObject({ runId });

    expect((await send(h, 'slack', fixture('slack', 3), slackSignature)).status).toBe(204);
    expect((await send(h, 'slack', event, (body) => slackSignature(body, 'not-the-secret'))).status).toBe(401);
    expect((await send(h, 'slack', event, () => ({}))).status).toBe(401);

    // the model is held: past replyWaitMs the command is acknowledged, ephemerally
    const command = await send(h, 'slack', fixture('slack', 6), slackSignature);
    expect(command.status).toBe(200);
    expect(command.headers.get('content-type')).toBe('application/json');
    expect(await command.json()).toEqual({ response_type: 'ephemeral', text: 'Working on it…' });
    release();
  });
});

describe('meta preset, live', () => {
  it("answers Meta's GET verification, takes a signed WhatsApp message once, answers a status update 200, refuses a bad signature", async () => {
    const fake = await model('We have it in blue.');
    const h = await start([{ name: 'meta', secret: META, verifyToken: META_VERIFY, deliver: false }], fake.url);

    const verify = await h.request(`/hooks/meta?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${META_VERIFY}`);
    expect(verify.status).toBe(200);
    expect(await verify.text()).toBe('1158201444');
    expect((await h.request(`/hooks/meta?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=wrong`)).status).toBe(401);

    const message = fixture('meta', 0);
    const first = await send(h, 'meta', message, metaSignature);
    expect(first.status).toBe(202);
    const { runId } = (await first.json()) as { runId: string };
    const again = await send(h, 'meta', message, metaSignature);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toMatchObject({ runId });

    const status = await send(h, 'meta', fixture('meta', 1), metaSignature);
    expect(status.status).toBe(200);
    expect(await status.text()).toBe('');
    expect((await send(h, 'meta', message, (body) => metaSignature(body, 'not-the-secret'))).status).toBe(401);
    expect((await send(h, 'meta', message, () => ({}))).status).toBe(401);
  });
});

describe('twilio preset, live', () => {
  it('answers a signed SMS with TwiML carrying the reply, replays it for a repeat, refuses a bad signature', async () => {
    const fake = await model('Shipped today & "tracked" <3');
    const h = await start([{ name: 'twilio', secret: TWILIO, replyWaitMs: 14000, deliver: false }], fake.url);
    const url = `${h.origin}/hooks/twilio`;
    const sms = fixture('twilio', 0);
    const res = await send(h, 'twilio', sms, (body) => twilioSignature(url, body));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/xml');
    const twiml = '<?xml version="1.0" encoding="UTF-8"?><Response><Message>Shipped today &#38; &#34;tracked&#34; &#60;3</Message></Response>';
    expect(await res.text()).toBe(twiml);

    const again = await send(h, 'twilio', sms, (body) => twilioSignature(url, body));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(twiml);
    expect(fake.requests).toHaveLength(1);

    expect((await send(h, 'twilio', fixture('twilio', 1), (body) => twilioSignature(url, body))).status).toBe(204);
    expect((await send(h, 'twilio', sms, (body) => twilioSignature(url, body, 'not-the-token'))).status).toBe(401);
    expect((await send(h, 'twilio', sms, () => ({}))).status).toBe(401);
  });

  it('answers an empty <Response/> past replyWaitMs', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fake = await model('later', released);
    const h = await start([{ name: 'twilio', secret: TWILIO, replyWaitMs: 50, deliver: false }], fake.url);
    const url = `${h.origin}/hooks/twilio`;
    const res = await send(h, 'twilio', fixture('twilio', 0), (body) => twilioSignature(url, body));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    release();
  });
});
