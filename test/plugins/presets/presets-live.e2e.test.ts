import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import type { FakeServer } from '../../helpers/fake-server.js';
import { fakeModel, startFakeOpenAI } from '../../models/fake-openai.js';

/**
 * The sender catalogue live: herald started with one `hooks.presets` line per sender, each
 * receiving its own fixture over a socket, signed exactly as the sender signs it. A signed
 * delivery is accepted and its message reaches the model; the same delivery again is replayed
 * (the same runId, Idempotent-Replayed); a wrong or missing signature is 401; what the preset
 * skips is 204.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const STANDARD_KEY = Buffer.from('standard-webhooks-signing-key-01');

const secrets: Record<string, string> = {
  github: 'gh-secret-0123456789',
  gitlab: 'gitlab-token-0123456789',
  stripe: 'whsec_stripe0123456789',
  linear: 'lin_wh_0123456789',
  sentry: 'sentry-client-secret-0123456789',
  pagerduty: 'pd-secret-0123456789',
  alertmanager: 'alertmanager-token-0123456789',
  shopify: 'shpss_0123456789',
  jira: 'jira-secret-0123456789',
  'standard-webhooks': `whsec_${STANDARD_KEY.toString('base64')}`,
};

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/** each sender's signature over a body, as its documentation says (the verifiers cite the pages) */
const sign: Record<string, (body: string, secret: string) => Record<string, string>> = {
  github: (body, secret) => ({ 'x-hub-signature-256': `sha256=${hmac(secret, body).toString('hex')}` }),
  gitlab: (_body, secret) => ({ 'x-gitlab-token': secret }),
  stripe: (body, secret) => {
    const t = Math.floor(Date.now() / 1000);
    return { 'stripe-signature': `t=${t},v1=${hmac(secret, `${t}.${body}`).toString('hex')}` };
  },
  linear: (body, secret) => ({ 'linear-signature': hmac(secret, body).toString('hex') }),
  sentry: (body, secret) => ({ 'sentry-hook-signature': hmac(secret, body).toString('hex') }),
  pagerduty: (body, secret) => ({ 'x-pagerduty-signature': `v1=${hmac(secret, body).toString('hex')}` }),
  alertmanager: (_body, secret) => ({ authorization: `Bearer ${secret}` }),
  shopify: (body, secret) => ({ 'x-shopify-hmac-sha256': hmac(secret, body).toString('base64') }),
  jira: (body, secret) => ({ 'x-hub-signature': `sha256=${hmac(secret, body).toString('hex')}` }),
  'standard-webhooks': (body, secret) => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const t = String(Math.floor(Date.now() / 1000));
    return { 'webhook-timestamp': t, 'webhook-signature': `v1,${hmac(key, `msg_live_1.${t}.${body}`).toString('base64')}`, 'webhook-id': 'msg_live_1' };
  },
};

/** per preset: the fixture case that starts a run (or wakes), and one the preset skips */
const cases: Record<string, { accepted: number; skipped?: number }> = {
  github: { accepted: 0, skipped: 10 },
  gitlab: { accepted: 0, skipped: 4 },
  stripe: { accepted: 0, skipped: 2 },
  linear: { accepted: 0, skipped: 4 },
  sentry: { accepted: 0, skipped: 2 },
  pagerduty: { accepted: 0, skipped: 4 },
  alertmanager: { accepted: 0 },
  shopify: { accepted: 0, skipped: 4 },
  jira: { accepted: 0, skipped: 4 },
  'standard-webhooks': { accepted: 0 },
};

interface FixtureCase {
  headers?: Record<string, string>;
  payload: Record<string, unknown>;
  expect: Record<string, unknown>;
}
const fixture = (name: string, index: number): FixtureCase => JSON.parse(fs.readFileSync(path.join(root, 'plugins', name, 'fixtures', `${name}.json`), 'utf8'))[index];

/** a fixture case as the sender sends it: its headers (without any signature it carried), the body signed with `secret` */
function delivery(name: string, index: number, secret = secrets[name]!): Delivery {
  const { headers = {}, payload } = fixture(name, index);
  // Linear signs a timestamp inside the body: a live delivery carries now
  const body = JSON.stringify(name === 'linear' ? { ...payload, webhookTimestamp: Date.now() } : payload);
  const unsigned = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^webhook-(signature|timestamp|id)$/i.test(k)));
  return { body, headers: { 'content-type': 'application/json', ...unsigned, ...sign[name]!(body, secret) } };
}

/** the signature headers removed: what a request that is not from the sender looks like */
function unsigned({ body, headers }: Delivery, name: string): Delivery {
  const signatureHeaders = Object.keys(sign[name]!('{}', secrets[name]!));
  return { body, headers: Object.fromEntries(Object.entries(headers).filter(([k]) => !signatureHeaders.includes(k))) };
}

let herald: TestApp;
let model: FakeServer;

async function post(name: string, { body, headers }: Delivery) {
  const res = await herald.request(`/hooks/${name === 'standard-webhooks' ? 'resend' : name}`, { method: 'POST', headers, body });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: res.status === 204 ? null : ((await res.json()) as Record<string, any>) };
}

beforeAll(async () => {
  model = await startFakeOpenAI('on it');
  herald = await testApp({
    ...fakeModel(model),
    hooks: {
      presets: [
        { name: 'github', secret: secrets.github, deliver: false },
        { name: 'gitlab', secret: secrets.gitlab, deliver: false },
        { name: 'stripe', secret: secrets.stripe, deliver: false },
        { name: 'linear', secret: secrets.linear, deliver: false },
        { name: 'sentry', secret: secrets.sentry, deliver: false },
        { name: 'pagerduty', secret: secrets.pagerduty, deliver: false },
        { name: 'alertmanager', secret: secrets.alertmanager, deliver: false },
        { name: 'shopify', secret: secrets.shopify, deliver: false },
        { name: 'jira', secret: secrets.jira, deliver: false },
        { name: 'standard-webhooks', path: 'resend', label: 'Resend', secret: secrets['standard-webhooks'], deliver: false },
      ],
    },
  });
});

afterAll(async () => {
  await herald?.stop();
  await model?.close();
});

/** the user messages the model received (heartbeat turns left out) */
const prompts = () =>
  model.requests
    .filter((r) => r.path.endsWith('/chat/completions'))
    .map((r) => (r.json.messages as { role: string; content: string }[]).at(-1)!.content)
    .filter((content) => !content.startsWith('Heartbeat'));

describe.each(Object.keys(cases))('preset %s, live', (name) => {
  const { accepted, skipped } = cases[name]!;

  it('accepts a delivery signed as the sender signs it; its message reaches the model; a repeat is replayed', async () => {
    const signed = delivery(name, accepted);
    const first = await post(name, signed);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ ok: true, runId: expect.any(String) });
    const run = await eventually(async () => {
      const found = await herald.gateway.store.runs.get(first.body!.runId);
      return found?.status === 'succeeded' ? found : undefined;
    });
    const expected = fixture(name, accepted).expect;
    // the standard-webhooks line names its sender (label Resend); the fixture runs with the default label
    const message = (expected.message as string).replace(/^Webhook event/, 'Resend event');
    expect(run).toMatchObject({ message, ...(expected.sessionKey !== undefined && { sessionKey: expected.sessionKey }) });
    expect(prompts().some((prompt) => prompt.includes(message))).toBe(true);

    const again = await post(name, signed);
    expect(again).toMatchObject({ status: 202, replayed: 'true', body: { runId: first.body!.runId } });
  });

  it('refuses a wrong or a missing signature with 401', async () => {
    const good = delivery(name, accepted);
    expect((await post(name, delivery(name, accepted, name === 'standard-webhooks' ? `whsec_${Buffer.from('another-key').toString('base64')}` : 'not-the-secret'))).status).toBe(401);
    expect((await post(name, unsigned(good, name))).status).toBe(401);
    // one changed byte of a signed body
    if (name !== 'gitlab' && name !== 'alertmanager') expect((await post(name, { ...good, body: `${good.body} ` })).status).toBe(401);
  });

  it.skipIf(skipped === undefined)('answers what the preset skips with 204', async () => {
    expect((await post(name, delivery(name, skipped!))).status).toBe(204);
  });
});

describe('shopify Events, live', () => {
  /** an Events delivery as Shopify sends it: the unprefixed Shopify-Hmac-Sha256, base64 HMAC-SHA256 of the body (https://shopify.dev/docs/apps/build/events/verify-deliveries) */
  const eventsDelivery = (index: number, secret = secrets.shopify!): Delivery => {
    const { headers = {}, payload } = fixture('shopify', index);
    const body = JSON.stringify(payload);
    return { body, headers: { ...headers, 'Shopify-Hmac-Sha256': hmac(secret, body).toString('base64') } };
  };

  it('routes an Events delivery to a run per resource; a repeat (the same Shopify-Webhook-Id) is replayed', async () => {
    const signed = eventsDelivery(7);
    const first = await post('shopify', signed);
    expect(first).toMatchObject({ status: 202, body: { ok: true, runId: expect.any(String) } });
    const run = await eventually(async () => {
      const found = await herald.gateway.store.runs.get(first.body!.runId);
      return found?.status === 'succeeded' ? found : undefined;
    });
    expect(run).toMatchObject({ message: fixture('shopify', 7).expect.message, sessionKey: 'hook:shopify:product:gid://shopify/Product/123' });
    expect(await post('shopify', signed)).toMatchObject({ status: 202, replayed: 'true', body: { runId: first.body!.runId } });
    // without Shopify-Webhook-Id, Shopify-Event-Id is the key
    const byEventId = eventsDelivery(8);
    const once = await post('shopify', byEventId);
    expect(once.status).toBe(202);
    expect(await post('shopify', byEventId)).toMatchObject({ status: 202, replayed: 'true', body: { runId: once.body!.runId } });
  });

  it('refuses an Events delivery signed with another secret with 401', async () => {
    expect((await post('shopify', eventsDelivery(7, 'not-the-secret'))).status).toBe(401);
  });
});

describe('presets, live', () => {
  it('a wake line (alertmanager resolved) is 200, replayed on a repeat', async () => {
    const resolved = delivery('alertmanager', 2);
    expect(await post('alertmanager', resolved)).toMatchObject({ status: 200, body: { ok: true, mode: 'next-heartbeat' } });
    expect(await post('alertmanager', resolved)).toMatchObject({ status: 200, replayed: 'true' });
  });

  it('logs no secret', () => {
    for (const secret of Object.values(secrets)) expect(herald.rawLogs()).not.toContain(secret);
  });
});
