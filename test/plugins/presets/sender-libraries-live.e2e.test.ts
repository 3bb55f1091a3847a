import { createHmac, generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Signature as HubSpotSignature } from '@hubspot/api-client/lib/src/utils/signature.js';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { signWebhookPayload, verifyWebhookSignature } from '@notionhq/client';
import { verify as verifyGitHub } from '@octokit/webhooks-methods';
import '@shopify/shopify-api/adapters/web-api';
import { ApiVersion, shopifyApi } from '@shopify/shopify-api';
import { RequestType, setUpValidRequest } from '@shopify/shopify-api/test-helpers';
import { isValidSlackRequest, verifySlackRequest } from '@slack/bolt';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AwsLambdaReceiver } from '@zoom/rivet/users';
import { verifyKey } from 'discord-interactions';
import { senderSignature } from '../../../src/mappings/signatures/sender-signing.js';
import { eventually } from '../../helpers/start-herald.js';
import type { FakeServer } from '../../helpers/fake-server.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { fakeModel, startFakeOpenAI } from '../../models/fake-openai.js';

/**
 * The presets against their senders' own libraries (issue 74, part 6): herald started with one
 * `hooks.presets` line per sender, each receiving its sender's published example (its fixture).
 * Where the sender's library signs (stripe's generateTestHeaderString, @notionhq/client's
 * signWebhookPayload, @shopify/shopify-api's test helpers), herald accepts what it signs; where it
 * verifies (stripe's constructEvent, @slack/bolt's verifySlackRequest, @linear/sdk's
 * LinearWebhookClient, @shopify/shopify-api's webhooks.validate, @notionhq/client's
 * verifyWebhookSignature, @zoom/rivet's receiver), it accepts what herald accepts and refuses what herald refuses. The
 * signatures herald makes itself (`herald hooks send`, `herald presets send`) pass the libraries too.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));

const secrets = {
  stripe: 'whsec_stripeLibrary0123456789',
  slack: 'slack-signing-secret-library-01',
  linear: 'lin_wh_library0123456789',
  shopify: 'shpss_library0123456789',
  notion: 'secret_notionLibraryToken0123456789',
  zoom: 'zoom-secret-token-library-0123',
} as const;
type Sender = keyof typeof secrets;

const stripe = new Stripe('sk_test_not_used_0123456789');
const shopify = shopifyApi({
  apiKey: 'shopify-api-key-library',
  apiSecretKey: secrets.shopify,
  scopes: ['read_orders'],
  hostName: 'herald.test',
  apiVersion: ApiVersion.January25,
  isEmbeddedApp: false,
  logger: { log: () => {} },
});
const linear = new LinearWebhookClient(secrets.linear);
const HUBSPOT_SECRET = 'hubspot-client-secret-library-01';
const discordKeys = generateKeyPairSync('ed25519');
const DISCORD_PUBLIC_KEY = Buffer.from(discordKeys.publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');

interface FixtureCase {
  headers?: Record<string, string>;
  payload?: Record<string, unknown>;
  form?: string;
  expect: Record<string, any>;
}
const fixture = (name: string, index: number): FixtureCase => JSON.parse(fs.readFileSync(path.join(root, 'plugins', name, 'fixtures', `${name}.json`), 'utf8'))[index];
const bodyOf = (name: string, index: number) => JSON.stringify(fixture(name, index).payload);
const nowS = () => Math.floor(Date.now() / 1000);

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

let herald: TestApp;
let model: FakeServer;

beforeAll(async () => {
  model = await startFakeOpenAI('on it');
  herald = await testApp({
    ...fakeModel(model),
    hooks: {
      mappingsDir: './no-mappings',
      presets: [
        ...(Object.keys(secrets) as Sender[]).map((name) => ({ name, secret: secrets[name], deliver: false })),
        { name: 'github', secret: 'gh-library-secret-0123456789', deliver: false },
        { name: 'hubspot', secret: HUBSPOT_SECRET, deliver: false },
        { name: 'discord', publicKey: DISCORD_PUBLIC_KEY, deliver: false },
        { name: 'standard-webhooks', path: 'clerk', label: 'Clerk', secret: `whsec_${Buffer.from('clerk-library-key-0123456789abcd').toString('base64')}`, deliver: false },
      ],
    },
  });
});

afterAll(async () => {
  await herald?.stop();
  await model?.close();
});

async function post(hookPath: string, { body, headers }: Delivery) {
  const res = await herald.request(`${herald.origin}/hooks/${hookPath}`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, text, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, any>) : null };
}

/** the run a 202 started, once it finished */
const finished = (runId: string) =>
  eventually(async () => {
    const found = await herald.gateway.store.runs.get(runId);
    return found?.status === 'succeeded' ? found : undefined;
  });

/** a delivery herald answers 202, whose run carries the fixture's message and session */
async function expectRun(hookPath: string, delivery: Delivery, expected: Record<string, any>) {
  const answer = await post(hookPath, delivery);
  expect(answer).toMatchObject({ status: 202, body: { ok: true, runId: expect.any(String) } });
  const run = await finished(answer.body!.runId);
  expect(run).toMatchObject({ message: expected.message, sessionKey: expected.sessionKey });
  const prompts = model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.json.messages as { content: string }[]).at(-1)!.content);
  expect(prompts.some((prompt) => prompt.includes(expected.message))).toBe(true);
}

describe('stripe, by the stripe library', () => {
  const { headers } = fixture('stripe', 0);

  it('accepts an event the library signs (generateTestHeaderString), which constructEvent accepts too', async () => {
    const body = bodyOf('stripe', 0);
    const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: secrets.stripe });
    expect(stripe.webhooks.constructEvent(body, signature, secrets.stripe).id).toBe(fixture('stripe', 0).payload!.id);
    await expectRun('stripe', { body, headers: { ...headers, 'stripe-signature': signature } }, fixture('stripe', 0).expect);
  });

  it('refuses with 401 what constructEvent refuses: a changed byte, another secret, a timestamp older than 5 minutes', async () => {
    const body = bodyOf('stripe', 1);
    const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: secrets.stripe });
    const other = stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_another0123456789' });
    const stale = stripe.webhooks.generateTestHeaderString({ payload: body, secret: secrets.stripe, timestamp: nowS() - 600 });
    for (const [sent, header] of [[`${body} `, signature], [body, other], [body, stale]] as const) {
      expect(() => stripe.webhooks.constructEvent(sent, header, secrets.stripe)).toThrow();
      expect((await post('stripe', { body: sent, headers: { ...headers, 'stripe-signature': header } })).status).toBe(401);
    }
  });

  it('is stricter than constructEvent on a timestamp 10 minutes ahead: the library takes it, herald answers 401', async () => {
    const body = bodyOf('stripe', 1);
    const ahead = stripe.webhooks.generateTestHeaderString({ payload: body, secret: secrets.stripe, timestamp: nowS() + 600 });
    expect(stripe.webhooks.constructEvent(body, ahead, secrets.stripe).id).toBe(fixture('stripe', 1).payload!.id);
    expect((await post('stripe', { body, headers: { ...headers, 'stripe-signature': ahead } })).status).toBe(401);
  });

  it('a header with the old and the new secret during a roll (two v1, a v0), as Stripe sends it, passes both', async () => {
    // https://docs.stripe.com/webhooks#roll-endpoint-secrets: one v1 per active secret
    const body = bodyOf('stripe', 3);
    const t = nowS();
    const v1 = (secret: string) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    const header = `t=${t},v1=${v1('whsec_rolledAway0123456789')},v1=${v1(secrets.stripe)},v0=${'0'.repeat(64)}`;
    expect(stripe.webhooks.constructEvent(body, header, secrets.stripe).type).toBe('customer.subscription.deleted');
    expect((await post('stripe', { body, headers: { ...headers, 'stripe-signature': header } })).status).toBe(202);
  });
});

describe("slack, by @slack/bolt's verifier", () => {
  /** https://api.slack.com/authentication/verifying-requests-from-slack: v0=hex HMAC-SHA256 of v0:<timestamp>:<body> (Slack's libraries verify, none signs) */
  const slackHeaders = (body: string, ts = nowS(), secret: string = secrets.slack) => ({
    'content-type': 'application/json',
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
  });
  const boltAccepts = ({ body, headers }: Delivery) =>
    isValidSlackRequest({ signingSecret: secrets.slack, body, headers: { 'x-slack-signature': headers['x-slack-signature']!, 'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']) } });

  it('an event herald accepts, verifySlackRequest accepts; its message reaches the model', async () => {
    const body = bodyOf('slack', 1);
    const delivery = { body, headers: slackHeaders(body) };
    expect(() => verifySlackRequest({ signingSecret: secrets.slack, body, headers: { 'x-slack-signature': delivery.headers['x-slack-signature'], 'x-slack-request-timestamp': Number(delivery.headers['x-slack-request-timestamp']) } })).not.toThrow();
    await expectRun('slack', delivery, fixture('slack', 1).expect);
  });

  it('the url_verification handshake herald answers is one bolt accepts', async () => {
    const body = bodyOf('slack', 0);
    const delivery = { body, headers: slackHeaders(body) };
    expect(boltAccepts(delivery)).toBe(true);
    expect(await post('slack', delivery)).toMatchObject({ status: 200, text: (fixture('slack', 0).payload as { challenge: string }).challenge });
  });

  it('a slash command (a form body, signed as sent) herald answers in place, bolt accepts', async () => {
    const form = fixture('slack', 6).form!;
    const delivery = { body: form, headers: { ...slackHeaders(form), 'content-type': 'application/x-www-form-urlencoded' } };
    expect(boltAccepts(delivery)).toBe(true);
    expect(await post('slack', delivery)).toMatchObject({ status: 200, body: { response_type: 'ephemeral', text: 'on it' } });
  });

  it('refuses with 401 what bolt refuses: a changed byte, another secret, a timestamp older than 5 minutes', async () => {
    const body = bodyOf('slack', 2);
    const good = slackHeaders(body);
    const refused: Delivery[] = [
      { body: `${body} `, headers: good },
      { body, headers: slackHeaders(body, nowS(), 'another-signing-secret') },
      { body, headers: slackHeaders(body, nowS() - 6 * 60) },
    ];
    for (const delivery of refused) {
      expect(boltAccepts(delivery)).toBe(false);
      expect((await post('slack', delivery)).status).toBe(401);
    }
  });

  it('is stricter than bolt on a timestamp 10 minutes ahead: bolt takes it, herald answers 401', async () => {
    const body = bodyOf('slack', 2);
    const ahead = { body, headers: slackHeaders(body, nowS() + 600) };
    expect(boltAccepts(ahead)).toBe(true);
    expect((await post('slack', ahead)).status).toBe(401);
  });
});

describe("linear, by @linear/sdk's LinearWebhookClient", () => {
  /** https://linear.app/developers/webhooks#securing-webhooks: hex HMAC-SHA256 of the body; webhookTimestamp (ms) in the body within a minute */
  const linearDelivery = (index: number, at = Date.now(), secret: string = secrets.linear): Delivery => {
    const body = JSON.stringify({ ...fixture('linear', index).payload, webhookTimestamp: at });
    return { body, headers: { ...fixture('linear', index).headers, 'linear-signature': createHmac('sha256', secret).update(body).digest('hex') } };
  };
  const linearAccepts = ({ body, headers }: Delivery) => {
    try {
      return linear.verify(Buffer.from(body), headers['linear-signature']!);
    } catch {
      return false;
    }
  };

  it('an issue event herald accepts, LinearWebhookClient.verify accepts (parseData reads it); its message reaches the model', async () => {
    const delivery = linearDelivery(0);
    expect(linearAccepts(delivery)).toBe(true);
    expect(linear.parseData(Buffer.from(delivery.body), delivery.headers['linear-signature']!)).toMatchObject({ type: 'Issue', action: 'create' });
    await expectRun('linear', delivery, fixture('linear', 0).expect);
  });

  it('refuses with 401 what the library refuses: a changed byte, another secret, a webhookTimestamp two minutes old', async () => {
    const good = linearDelivery(1);
    const refused: Delivery[] = [{ ...good, body: `${good.body} ` }, linearDelivery(1, Date.now(), 'lin_wh_another'), linearDelivery(1, Date.now() - 2 * 60_000)];
    for (const delivery of refused) {
      expect(linearAccepts(delivery)).toBe(false);
      expect((await post('linear', delivery)).status).toBe(401);
    }
  });
});

describe('shopify, by @shopify/shopify-api', () => {
  /** a request the library's test helper signs (X-Shopify-Hmac-Sha256 over the body), with the fixture's headers */
  async function librarySigned(index: number, secret: string = secrets.shopify): Promise<Delivery> {
    const { headers = {}, payload } = fixture('shopify', index);
    const request = await setUpValidRequest({ type: RequestType.Extension, store: 'example-shop', apiSecretKey: secret, body: payload, headers }, new Request('https://herald.test/hooks/shopify'));
    return { body: await request.text(), headers: Object.fromEntries(request.headers) };
  }
  const validate = async ({ body, headers }: Delivery) =>
    (await shopify.webhooks.validate({ rawBody: body, rawRequest: new Request('https://herald.test/hooks/shopify', { method: 'POST', headers, body }) })).valid;

  it('accepts orders/create as the library signs it, which webhooks.validate accepts too; its message reaches the model', async () => {
    const delivery = await librarySigned(0);
    expect(await validate(delivery)).toBe(true);
    await expectRun('shopify', delivery, fixture('shopify', 0).expect);
  });

  it('an Events delivery (unprefixed Shopify-Hmac-Sha256) herald accepts, webhooks.validate accepts', async () => {
    // https://shopify.dev/docs/apps/build/events/verify-deliveries: base64 HMAC-SHA256 of the body
    const { headers = {} } = fixture('shopify', 7);
    const body = bodyOf('shopify', 7);
    const delivery = { body, headers: { ...headers, 'Shopify-Hmac-Sha256': createHmac('sha256', secrets.shopify).update(body).digest('base64') } };
    expect(await validate(delivery)).toBe(true);
    await expectRun('shopify', delivery, fixture('shopify', 7).expect);
  });

  it('refuses with 401 what webhooks.validate refuses: a changed byte, another secret', async () => {
    const good = await librarySigned(1);
    for (const delivery of [{ ...good, body: `${good.body} ` }, await librarySigned(1, 'shpss_another')]) {
      expect(await validate(delivery)).toBe(false);
      expect((await post('shopify', delivery)).status).toBe(401);
    }
  });
});

describe('notion, by @notionhq/client', () => {
  const notionDelivery = async (index: number, token: string = secrets.notion): Promise<Delivery> => {
    const body = bodyOf('notion', index);
    return { body, headers: { ...fixture('notion', index).headers, 'x-notion-signature': await signWebhookPayload({ body, verificationToken: token }) } };
  };

  it('accepts page.created as signWebhookPayload signs it, which verifyWebhookSignature accepts; its message reaches the model', async () => {
    const delivery = await notionDelivery(1);
    expect(await verifyWebhookSignature({ body: delivery.body, signature: delivery.headers['x-notion-signature'], verificationToken: secrets.notion })).toBe(true);
    await expectRun('notion', delivery, fixture('notion', 1).expect);
  });

  it('refuses with 401 what verifyWebhookSignature refuses: a changed byte, another token', async () => {
    const good = await notionDelivery(2);
    for (const delivery of [{ ...good, body: `${good.body} ` }, await notionDelivery(2, 'secret_another')]) {
      expect(await verifyWebhookSignature({ body: delivery.body, signature: delivery.headers['x-notion-signature'], verificationToken: secrets.notion })).toBe(false);
      expect((await post('notion', delivery)).status).toBe(401);
    }
  });
});

describe("zoom, by @zoom/rivet's receiver", () => {
  /** https://developers.zoom.us/docs/api/webhooks/#verify-webhook-events: v0=hex HMAC-SHA256 of v0:<x-zm-request-timestamp>:<body> (Rivet verifies, none signs) */
  const zoomDelivery = (index: number, secret: string = secrets.zoom): Delivery => {
    const body = bodyOf('zoom', index);
    const ts = String(nowS());
    return { body, headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': ts, 'x-zm-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}` } };
  };
  /** Rivet's own answer to a delivery, as its Lambda receiver gives it (the HTTP receiver does the same over a socket) */
  const rivet = async ({ body, headers }: Delivery) => {
    // the receiver prints each event it processes: kept out of the test output
    const quiet = vi.spyOn(console, 'debug').mockImplementation(() => {});
    try {
      const handler = new AwsLambdaReceiver({ webhooksSecretToken: secrets.zoom }).start();
      const answer = (await handler({ body, headers, isBase64Encoded: false } as never, {} as never)) as { statusCode: number; body: string };
      return { status: answer.statusCode, json: JSON.parse(answer.body) as Record<string, unknown> };
    } finally {
      quiet.mockRestore();
    }
  };

  it('a meeting.ended herald accepts, Rivet accepts; its message reaches the model', async () => {
    const delivery = zoomDelivery(0);
    expect((await rivet(delivery)).status).toBe(200);
    await expectRun('zoom', delivery, fixture('zoom', 0).expect);
  });

  it('herald answers endpoint.url_validation exactly as Rivet answers it', async () => {
    const delivery = zoomDelivery(2);
    const ours = await post('zoom', delivery);
    const theirs = await rivet(delivery);
    expect(ours.status).toBe(200);
    expect(theirs).toMatchObject({ status: 200 });
    expect(ours.body).toEqual(theirs.json);
  });

  it('refuses with 401 what Rivet refuses: a changed byte, another secret token', async () => {
    const good = zoomDelivery(1);
    const changed = { ...good, body: good.body.replace('"topic":"', '"topic":"x') };
    for (const delivery of [changed, zoomDelivery(1, 'another-secret-token')]) {
      expect((await rivet(delivery)).status).toBe(400);
      expect((await post('zoom', delivery)).status).toBe(401);
    }
  });

  it('is stricter than Rivet, which checks no time: a delivery signed 10 minutes ago is 401', async () => {
    const body = bodyOf('zoom', 1);
    const ts = String(nowS() - 600);
    const stale = { body, headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': ts, 'x-zm-signature': `v0=${createHmac('sha256', secrets.zoom).update(`v0:${ts}:${body}`).digest('hex')}` } };
    expect((await rivet(stale)).status).toBe(200);
    expect((await post('zoom', stale)).status).toBe(401);
  });
});

describe('where herald is stricter than the library (a window in both directions, 5 minutes)', () => {
  it('@hubspot/api-client takes a v3 timestamp 10 minutes ahead, herald answers 401', async () => {
    const body = bodyOf('hubspot', 0);
    const url = `${herald.origin}/hooks/hubspot`;
    const signedAt = (timestamp: number) => {
      const signature = HubSpotSignature.getSignature('POST', 'v3', { signature: '', clientSecret: HUBSPOT_SECRET, requestBody: body, url, timestamp });
      expect(HubSpotSignature.isValid({ signatureVersion: 'v3', signature, clientSecret: HUBSPOT_SECRET, requestBody: body, url, timestamp })).toBe(true);
      return { body, headers: { 'content-type': 'application/json', 'x-hubspot-request-timestamp': String(timestamp), 'x-hubspot-signature-v3': signature } };
    };
    expect((await post('hubspot', signedAt(Date.now() + 600_000))).status).toBe(401);
    // the same request signed now is taken
    expect((await post('hubspot', signedAt(Date.now()))).status).toBe(202);
  });

  it('discord-interactions checks no time: a PING signed 10 minutes ago passes verifyKey, herald answers 401', async () => {
    // https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers: Ed25519 over timestamp then body
    const body = bodyOf('discord', 0);
    const signedAt = async (seconds: number) => {
      const timestamp = String(seconds);
      const signature = ed25519Sign(null, Buffer.from(timestamp + body), discordKeys.privateKey).toString('hex');
      expect(await verifyKey(body, signature, timestamp, DISCORD_PUBLIC_KEY)).toBe(true);
      return { body, headers: { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp } };
    };
    expect((await post('discord', await signedAt(nowS() - 600))).status).toBe(401);
    expect(await post('discord', await signedAt(nowS()))).toMatchObject({ status: 200, body: { type: 1 } });
  });
});

describe('the signatures herald makes (herald hooks send, herald presets send), by the senders’ libraries', () => {
  const signed = (type: string, secret: string, body: string) => senderSignature({ type, secret } as never, Buffer.from(body), Date.now())!;
  const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

  it('stripe: constructEvent accepts it, and herald does', async () => {
    const body = bodyOf('stripe', 0).replace('evt_', 'evt_herald_');
    const headers = lower(signed('stripe', secrets.stripe, body));
    expect(stripe.webhooks.constructEvent(body, headers['stripe-signature']!, secrets.stripe).type).toBe('invoice.payment_failed');
    expect((await post('stripe', { body, headers: { ...fixture('stripe', 0).headers, ...headers } })).status).toBe(202);
  });

  it('slack: verifySlackRequest accepts it, and herald does', async () => {
    const body = bodyOf('slack', 1).replace('Ev123ABC456', 'EvHeraldSigned');
    const headers = lower(signed('slack', secrets.slack, body));
    expect(() => verifySlackRequest({ signingSecret: secrets.slack, body, headers: { 'x-slack-signature': headers['x-slack-signature']!, 'x-slack-request-timestamp': Number(headers['x-slack-request-timestamp']) } })).not.toThrow();
    expect((await post('slack', { body, headers: { 'content-type': 'application/json', ...headers } })).status).toBe(202);
  });

  it('shopify: webhooks.validate accepts it, and herald does', async () => {
    const body = bodyOf('shopify', 3);
    const headers = { ...fixture('shopify', 3).headers, ...signed('shopify', secrets.shopify, body) };
    expect((await shopify.webhooks.validate({ rawBody: body, rawRequest: new Request('https://herald.test/hooks/shopify', { method: 'POST', headers, body }) })).valid).toBe(true);
    expect((await post('shopify', { body, headers })).status).toBe(202);
  });

  it('notion: verifyWebhookSignature accepts it, and herald does', async () => {
    const body = bodyOf('notion', 3);
    const headers = lower(signed('notion', secrets.notion, body));
    expect(await verifyWebhookSignature({ body, signature: headers['x-notion-signature'], verificationToken: secrets.notion })).toBe(true);
    expect((await post('notion', { body, headers: { ...fixture('notion', 3).headers, ...headers } })).status).toBe(202);
  });

  it('github: @octokit/webhooks-methods verify accepts it, and herald does', async () => {
    const body = bodyOf('github', 0);
    const headers = lower(signed('github', 'gh-library-secret-0123456789', body));
    expect(await verifyGitHub('gh-library-secret-0123456789', body, headers['x-hub-signature-256']!)).toBe(true);
    expect((await post('github', { body, headers: { ...fixture('github', 0).headers, ...headers } })).status).toBe(202);
  });

  it('standard-webhooks: svix and standardwebhooks verify accept it, and herald does', async () => {
    const secret = `whsec_${Buffer.from('clerk-library-key-0123456789abcd').toString('base64')}`;
    const body = JSON.stringify({ data: { id: 'user_herald_signed', object: 'user' }, object: 'event', timestamp: 1654012591835, type: 'user.created' });
    const headers = signed('standard-webhooks', secret, body);
    expect(() => new StandardWebhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new SvixWebhook(secret).verify(body, headers)).not.toThrow();
    expect((await post('clerk', { body, headers: { 'content-type': 'application/json', ...headers } })).status).toBe(202);
  });
});

describe('secrets', () => {
  it('logs none', () => {
    for (const secret of [...Object.values(secrets), HUBSPOT_SECRET]) expect(herald.rawLogs()).not.toContain(secret);
  });
});
