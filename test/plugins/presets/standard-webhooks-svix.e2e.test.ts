import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import type { FakeServer } from '../../helpers/fake-server.js';
import { fakeModel, startFakeOpenAI } from '../../models/fake-openai.js';

/**
 * Standard Webhooks as Svix sends them: Svix (and so Clerk and Resend) sends svix-id,
 * svix-timestamp and svix-signature by default, the webhook-* names only when "unbranded"
 * (https://docs.svix.com/receiving/verifying-payloads/how-manual). Each delivery here is signed
 * by the senders' own libraries (`svix`, `standardwebhooks`); what herald accepts, the same
 * libraries' verify() accepts too. Two instances of the preset (Clerk and Resend), each with its
 * own secret and path.
 */
const CLERK_SECRET = `whsec_${Buffer.from('clerk-signing-key-0123456789abcd').toString('base64')}`;
const RESEND_SECRET = `whsec_${Buffer.from('resend-signing-key-0123456789abc').toString('base64')}`;

let herald: TestApp;
let model: FakeServer;

beforeAll(async () => {
  model = await startFakeOpenAI('on it');
  herald = await testApp({
    ...fakeModel(model),
    hooks: {
      presets: [
        { name: 'standard-webhooks', path: 'clerk', label: 'Clerk', secret: CLERK_SECRET, deliver: false },
        { name: 'standard-webhooks', path: 'resend', label: 'Resend', secret: RESEND_SECRET, deliver: false },
      ],
    },
  });
});

afterAll(async () => {
  await herald?.stop();
  await model?.close();
});

/** Clerk's user.created (https://clerk.com/docs/webhooks/overview#payload-structure), abridged */
const userCreated = (id: string) => JSON.stringify({ data: { id, object: 'user', first_name: 'Example' }, object: 'event', timestamp: 1654012591835, type: 'user.created' });

/** a delivery as Svix sends it by default: svix-* headers, signed by the svix library */
function svixDelivery(secret: string, msgId: string, body: string, at = new Date()): Record<string, string> {
  const signature = new SvixWebhook(secret).sign(msgId, at, body);
  return { 'content-type': 'application/json', 'svix-id': msgId, 'svix-timestamp': String(Math.floor(at.getTime() / 1000)), 'svix-signature': signature };
}

async function post(path: string, headers: Record<string, string>, body: string) {
  const res = await herald.request(`/hooks/${path}`, { method: 'POST', headers, body });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: res.status === 204 ? null : ((await res.json()) as { runId?: string }) };
}

describe('standard-webhooks, as Svix sends it', () => {
  it('accepts svix-* headers signed by the svix library, which verifies them too; a redelivery of the svix-id is replayed', async () => {
    const body = userCreated('user_29w83sxmDNGwOuEthce5gg56FcC');
    const headers = svixDelivery(CLERK_SECRET, 'msg_svix_1', body);
    expect(() => new SvixWebhook(CLERK_SECRET).verify(body, headers)).not.toThrow();
    const first = await post('clerk', headers, body);
    expect(first).toMatchObject({ status: 202, body: { runId: expect.any(String) } });
    const run = await eventually(async () => {
      const found = await herald.gateway.store.runs.get(first.body!.runId!);
      return found?.status === 'succeeded' ? found : undefined;
    });
    expect(run.message).toBe('Clerk event user.created at 2022-05-31T15:56:31.835Z:\n{"id":"user_29w83sxmDNGwOuEthce5gg56FcC","object":"user","first_name":"Example"}');

    // Svix retries with the same svix-id, signed again at another time
    const again = await post('clerk', svixDelivery(CLERK_SECRET, 'msg_svix_1', body, new Date(Date.now() + 5_000)), body);
    expect(again).toMatchObject({ status: 202, replayed: 'true', body: { runId: first.body!.runId } });
  });

  it('accepts webhook-* headers signed by the standardwebhooks library, and dedupes on webhook-id', async () => {
    const body = userCreated('user_standard');
    const at = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_standard_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new StandardWebhook(CLERK_SECRET).sign('msg_standard_1', at, body) };
    expect(() => new StandardWebhook(CLERK_SECRET).verify(body, headers)).not.toThrow();
    const first = await post('clerk', headers, body);
    expect(first.status).toBe(202);
    expect(await post('clerk', headers, body)).toMatchObject({ status: 202, replayed: 'true', body: { runId: first.body!.runId } });
  });

  it("refuses what svix's verify() refuses: another endpoint's secret, a changed body, a stale timestamp, a missing header", async () => {
    const body = userCreated('user_refused');
    const resendSigned = svixDelivery(RESEND_SECRET, 'msg_svix_2', body);
    expect(() => new SvixWebhook(CLERK_SECRET).verify(body, resendSigned)).toThrow();
    expect((await post('clerk', resendSigned, body)).status).toBe(401);
    // the same delivery is Resend's to take, on Resend's path
    expect((await post('resend', resendSigned, body)).status).toBe(202);

    const signed = svixDelivery(CLERK_SECRET, 'msg_svix_3', body);
    expect((await post('clerk', signed, `${body} `)).status).toBe(401);
    const stale = svixDelivery(CLERK_SECRET, 'msg_svix_4', body, new Date(Date.now() - 10 * 60_000));
    expect(() => new SvixWebhook(CLERK_SECRET).verify(body, stale)).toThrow();
    expect((await post('clerk', stale, body)).status).toBe(401);
    const { 'svix-timestamp': _, ...withoutTimestamp } = signed;
    expect((await post('clerk', withoutTimestamp, body)).status).toBe(401);
  });

  it('logs no secret', () => {
    expect(herald.rawLogs()).not.toContain(CLERK_SECRET);
    expect(herald.rawLogs()).not.toContain(RESEND_SECRET);
  });
});
