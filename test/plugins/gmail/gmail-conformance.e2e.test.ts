import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GmailWatcher } from '../../../plugins/gmail/watcher/gmail-watcher.js';
import { gmailConfigSchema } from '../../../plugins/gmail/config.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { CLIENT_ID, CLIENT_SECRET, FakeGoogle, REFRESH_TOKEN, pushEnvelope } from './fake-google.js';

const ACCOUNT = 'me@example.com';
const PUSH_TOKEN = 'push-token-0123456789abcdef';
const TOPIC = 'projects/proj/topics/gog-gmail-watch';
const SUBSCRIPTION = 'projects/proj/subscriptions/gog-gmail-watch-push';
const PUSHER = 'pubsub-push@proj.iam.gserviceaccount.com';
const AUDIENCE = 'https://push.example.com/gmail-pubsub';

describe('gmail against Google as documented', () => {
  let google: FakeGoogle;
  let hook: FakeServer;
  let herald: TestApp | undefined;

  beforeEach(async () => {
    google = await FakeGoogle.start();
    hook = await startFakeServer(() => ({ status: 202, body: { ok: true, runId: 'r' } }));
  });
  afterEach(async () => {
    await herald?.stop();
    herald = undefined;
    await hook.close();
    await google.server.close();
  });

  async function start(overrides: Record<string, unknown> = {}) {
    herald = await testApp({
      hooks: {
        presets: ['gmail'],
        gmail: {
          account: ACCOUNT,
          topic: TOPIC,
          subscription: 'gog-gmail-watch-push',
          pushToken: PUSH_TOKEN,
          pushEndpoint: 'https://push.example.com/gmail-pubsub',
          hookUrl: `${hook.url}/hooks/gmail`,
          maxBytes: 64,
          serve: { bind: '127.0.0.1', port: 0, path: '/gmail-pubsub' },
          oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN },
          endpoints: google.endpoints(),
          ...overrides,
        },
      },
    });
    return herald;
  }
  const watcher = () => herald!.gateway.instances.services.find((s) => s.name === 'gmail-watcher') as GmailWatcher;
  const push = (historyId: string, headers: Record<string, string> = {}, token: string | null = PUSH_TOKEN) =>
    fetch(`${watcher().url}${token === null ? '' : `?token=${token}`}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(pushEnvelope(ACCOUNT, historyId)) });
  /** the first watch and the catch-up after it are done: mail a test adds comes after them (else a race) */
  const ready = async () => {
    await eventually(() => google.calls('GET', '/gmail/v1/users/me/history').length > 0);
    await watcher().idle();
  };
  const posted = () => hook.requests.map((r) => r.json.messages[0].id as string);

  it('a push before the first watch replays no old mail; mail after it is reported', async () => {
    google.addMail({ id: 'old-1', subject: 'last week', text: 'x' });
    google.addMail({ id: 'old-2', subject: 'yesterday', text: 'x' });
    google.failures.set('/gmail/v1/users/me/watch', { status: 503, body: { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } }, times: 1 });
    await start();
    // Pub/Sub delivers a push queued since setup, before any watch succeeded
    expect((await push(String(google.historyId))).status).toBe(204);
    await watcher().idle();
    expect(posted()).toEqual([]);
    expect(google.calls('GET', '/gmail/v1/users/me/messages').filter((r) => r.path === '/gmail/v1/users/me/messages')).toHaveLength(0);
    const state = herald!.gateway.store.state;
    expect(await state.get(`plugin:gmail:baseline:${ACCOUNT}`)).toMatchObject({ historyId: '1002' });
    const next = google.addMail({ id: 'new-1', subject: 'today', text: 'x' });
    expect((await push(next)).status).toBe(204);
    await eventually(() => posted().includes('new-1'));
    expect(posted()).toEqual(['new-1']);
  });

  it('recovery from a stale history id never reports mail older than the baseline', async () => {
    await start();
    await ready();
    google.addMail({ id: 'before-setup', text: 'x', receivedAt: Date.now() - 3_600_000 });
    google.staleBefore = google.historyId + 100;
    const last = google.addMail({ id: 'after-setup', text: 'x' });
    expect((await push(last)).status).toBe(204);
    await eventually(() => posted().includes('after-setup'));
    expect(posted()).toEqual(['after-setup']);
  });

  it('each watch renewal finds a deleted push subscription and re-creates it, never expiring', async () => {
    google.topics.add(TOPIC);
    await start();
    await eventually(() => google.calls('PUT', `/v1/${SUBSCRIPTION}`).length > 0);
    const put = google.calls('PUT', `/v1/${SUBSCRIPTION}`)[0]!;
    expect(put.json.expirationPolicy).toEqual({});
    expect(put.json.topic).toBe(TOPIC);
    expect(new URL(put.json.pushConfig.pushEndpoint).searchParams.get('token')).toBe(PUSH_TOKEN);
    expect(google.subscriptions.get(SUBSCRIPTION)!.expirationPolicy).toEqual({});
    await eventually(() => herald!.logs.some((l) => l.msg === 'gmail push subscription was gone; re-created'));
  });

  it('a subscription made with the default 31-day expiry is set to never expire at renewal', async () => {
    google.topics.add(TOPIC);
    google.subscriptions.set(SUBSCRIPTION, { topic: TOPIC, pushConfig: { pushEndpoint: `https://push.example.com/gmail-pubsub?token=${PUSH_TOKEN}` }, expirationPolicy: { ttl: '2678400s' } });
    await start();
    await eventually(() => google.calls('PATCH', `/v1/${SUBSCRIPTION}`).length > 0);
    expect(google.calls('PATCH', `/v1/${SUBSCRIPTION}`)[0]!.json.updateMask).toBe('expirationPolicy');
    expect(google.subscriptions.get(SUBSCRIPTION)!.expirationPolicy).toEqual({});
  });

  it('a body Gmail keeps as an attachment is fetched (messages.attachments.get) and cut at maxBytes', async () => {
    await start();
    await ready();
    const last = google.addMail({ id: 'big-1', text: `Dear team, ${'figures '.repeat(20)}`, detached: true });
    expect((await push(last)).status).toBe(204);
    await eventually(() => posted().includes('big-1'));
    const summary = hook.requests[0]!.json.messages[0];
    expect(summary.body.startsWith('Dear team, figures')).toBe(true);
    expect(summary.bodyTruncated).toBe(true);
    expect(google.calls('GET', '/gmail/v1/users/me/messages/big-1/attachments/')).toHaveLength(1);
  });

  it('a detached body far over maxBytes is not downloaded; the summary says it was cut', async () => {
    await start();
    await ready();
    const last = google.addMail({ id: 'huge-1', text: 'y'.repeat(64 * 4 + 1), detached: true });
    expect((await push(last)).status).toBe(204);
    await eventually(() => posted().includes('huge-1'));
    expect(hook.requests[0]!.json.messages[0]).toMatchObject({ body: '', bodyTruncated: true });
    expect(google.calls('GET', '/gmail/v1/users/me/messages/huge-1/attachments/')).toHaveLength(0);
  });

  describe('OIDC push authentication', () => {
    const oidc = () => ({ pushOidc: { serviceAccountEmail: PUSHER, audience: AUDIENCE, jwksUrl: google.jwksUrl } });
    beforeEach(async () => {
      await start(oidc());
      await ready();
    });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    it('accepts a token Google signed for this audience and service account', async () => {
      const last = google.addMail({ id: 'signed-1', text: 'x' });
      expect((await push(last, bearer(google.pushToken({ aud: AUDIENCE, email: PUSHER })))).status).toBe(204);
      await eventually(() => posted().includes('signed-1'));
    });

    it('refuses a missing, forged, expired, misaddressed or foreign token with 401, and keeps ?token= checked', async () => {
      const last = google.addMail({ id: 'forged-1', text: 'x' });
      const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const now = Math.floor(Date.now() / 1000);
      const refused = [
        {},
        bearer(google.pushToken({ aud: AUDIENCE, email: PUSHER }, { key: otherKey })),
        bearer(google.pushToken({ aud: AUDIENCE, email: PUSHER, iat: now - 7200, exp: now - 3600 })),
        bearer(google.pushToken({ aud: 'https://elsewhere.example.com/', email: PUSHER })),
        bearer(google.pushToken({ aud: AUDIENCE, email: 'someone@evil.example.com' })),
        bearer(google.pushToken({ aud: AUDIENCE, email: PUSHER, iss: 'https://evil.example.com' })),
        bearer(google.pushToken({ aud: AUDIENCE, email: PUSHER }, { kid: 'unknown-kid' })),
      ];
      for (const headers of refused) expect((await push(last, headers)).status).toBe(401);
      expect((await push(last, bearer(google.pushToken({ aud: AUDIENCE, email: PUSHER })), 'wrong-token')).status).toBe(401);
      await watcher().idle();
      expect(posted()).toEqual([]);
      // the keys were fetched once (cached per Cache-Control), not per push
      expect(google.calls('GET', '/oauth2/v3/certs').length).toBeLessThanOrEqual(2);
    });
  });

  it('renewEveryMinutes is bounded by the 7-day watch expiry', () => {
    expect(gmailConfigSchema.safeParse({ renewEveryMinutes: 7 * 24 * 60 }).success).toBe(false);
    expect(gmailConfigSchema.safeParse({ renewEveryMinutes: 6 * 24 * 60 }).success).toBe(true);
  });
});
