import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GmailWatcher } from '../../../plugins/gmail/watcher/gmail-watcher.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { GATEWAY_TOKEN, HOOK_TOKEN, baseConfig, eventually, startHerald, type RunningHerald } from '../../helpers/start-herald.js';
import { ACCESS_TOKEN, CLIENT_ID, CLIENT_SECRET, FakeGoogle, REFRESH_TOKEN, pushEnvelope } from './fake-google.js';
import { sqliteDb } from '../../helpers/sqlite-db.js';

const ACCOUNT = 'me@example.com';
const PUSH_TOKEN = 'push-token-0123456789abcdef';

describe('the gmail watcher inside serve', () => {
  let google: FakeGoogle;
  let relay: FakeServer;
  let herald: RunningHerald;
  let heraldUrl = '';

  beforeEach(async () => {
    google = await FakeGoogle.start();
    // the gateway listens on a port chosen at start, after the watcher's config is written:
    // the hook URL points at this relay, which forwards to the gateway (and shows what was posted)
    relay = await startFakeServer(async (r) => {
      const headers = { authorization: String(r.headers.authorization), 'content-type': 'application/json', 'idempotency-key': String(r.headers['idempotency-key']) };
      const response = await fetch(`${heraldUrl}/hooks/gmail`, { method: 'POST', headers, body: r.body });
      return { status: response.status, body: await response.text() };
    });
    herald = await startHerald(
      baseConfig({
        hooks: {
          presets: ['gmail'],
          gmail: {
            account: ACCOUNT,
            topic: 'projects/proj/topics/gog-gmail-watch',
            subscription: 'gog-gmail-watch-push',
            pushToken: PUSH_TOKEN,
            hookUrl: `${relay.url}/hooks/gmail`,
            maxBytes: 64,
            serve: { bind: '127.0.0.1', port: 0, path: '/gmail-pubsub' },
            oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN },
            endpoints: google.endpoints(),
          },
        },
      }),
    );
    heraldUrl = herald.url;
    await eventually(() => google.calls('POST', '/gmail/v1/users/me/watch').length > 0);
    // the watch is followed by a first catch-up of history: mail a test adds must come after it
    await eventually(() => google.calls('GET', '/gmail/v1/users/me/history').length > 0);
    await watcher().idle();
  });

  afterEach(async () => {
    await herald.stop();
    await relay.close();
    await google.server.close();
  });

  function watcher(): GmailWatcher {
    return herald.gateway.instances.services.find((s) => s.name === 'gmail-watcher') as GmailWatcher;
  }

  function push(historyId: string, token = PUSH_TOKEN, body: unknown = pushEnvelope(ACCOUNT, historyId)) {
    return fetch(`${watcher().url}?token=${encodeURIComponent(token)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  function runsFor(messageId: string): { id: string; message: string }[] {
    return sqliteDb(herald.gateway.store).prepare('SELECT id, message FROM runs WHERE session_key = ?').all(`hook:gmail:${messageId}`) as never;
  }

  async function adminRun(id: string) {
    const response = await fetch(`${herald.url}/admin/runs/${id}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    return (await response.json()) as { sessionKey: string; message: string };
  }

  it('a push becomes an agent run with the sender and subject in its message', async () => {
    const historyId = google.addMail({ id: 'msg-1', from: 'Bob Builder <bob@example.com>', subject: 'Quarterly numbers', text: 'Please see the attached figures.' });
    const response = await push(historyId);
    expect(response.status).toBe(204);

    const [run] = await eventually(() => (runsFor('msg-1').length ? runsFor('msg-1') : undefined));
    const shown = await adminRun(run!.id);
    expect(shown.sessionKey).toBe('hook:gmail:msg-1');
    expect(shown.message).toContain('Bob Builder <bob@example.com>');
    expect(shown.message).toContain('Quarterly numbers');

    const posted = relay.requests[0]!;
    expect(posted.headers.authorization).toBe(`Bearer ${HOOK_TOKEN}`);
    // stable per message, so a repost after a crash between posting and recording gets the first answer
    expect(posted.headers['idempotency-key']).toBe(`gmail:${ACCOUNT}:msg-1`);
    expect(posted.json).toMatchObject({
      source: 'gmail',
      account: ACCOUNT,
      messages: [{ id: 'msg-1', threadId: 'thread-msg-1', from: 'Bob Builder <bob@example.com>', to: 'me@example.com', subject: 'Quarterly numbers', body: 'Please see the attached figures.', bodyTruncated: false, labels: ['INBOX', 'UNREAD'] }],
    });
    expect(typeof posted.json.historyId).toBe('string');
  });

  it('an unwrapped push (a subscription with payload unwrapping) is accepted too', async () => {
    const historyId = google.addMail({ id: 'raw-1', subject: 'unwrapped', text: 'x' });
    expect((await push(historyId, PUSH_TOKEN, { emailAddress: ACCOUNT, historyId: Number(historyId) })).status).toBe(204);
    await eventually(() => runsFor('raw-1').length === 1);
  });

  it('redelivered and concurrent pushes make one run per message; history is paged', async () => {
    const ids = ['a-1', 'a-2', 'a-3', 'a-4', 'a-5'];
    let last = '';
    for (const id of ids) last = google.addMail({ id, subject: `Subject ${id}`, text: 'hi' });
    // Pub/Sub at-least-once: the same notification several times, at once
    const answers = await Promise.all([push(last), push(last), push(last), push(String(Number(last) - 2))]);
    expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204]);
    await eventually(() => ids.every((id) => runsFor(id).length === 1));
    expect(google.calls('GET', '/gmail/v1/users/me/history').some((r) => r.query.pageToken)).toBe(true);

    // a later redelivery of the old notification, then a new mail: when the new one has its run,
    // the redelivery has been handled too (processing is serialised) and made no second run
    expect((await push(last)).status).toBe(204);
    const next = google.addMail({ id: 'b-1', subject: 'later', text: 'x' });
    expect((await push(next)).status).toBe(204);
    await eventually(() => runsFor('b-1').length === 1);
    for (const id of ids) expect(runsFor(id)).toHaveLength(1);
    expect(relay.requests.map((r) => r.headers['idempotency-key'])).toEqual([...ids, 'b-1'].map((id) => `gmail:${ACCOUNT}:${id}`));
  });

  function seenKey(messageId: string): string {
    return `plugin:gmail:seen:${messageId}:${ACCOUNT}`;
  }

  it('a message the hook took before a crash, then changed, is not posted again (its Idempotency-Key is known)', async () => {
    // the first post reached herald but the watcher stopped before recording it; since then the mail was read
    const first = await fetch(`${herald.url}/hooks/gmail`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `gmail:${ACCOUNT}:dup-1` },
      body: JSON.stringify({ source: 'gmail', account: ACCOUNT, historyId: '1', messages: [{ id: 'dup-1', subject: 'as first posted', labels: ['INBOX', 'UNREAD'] }] }),
    });
    expect(first.status).toBe(202);
    const historyId = google.addMail({ id: 'dup-1', subject: 'as first posted', text: 'x', labels: ['INBOX'] });
    expect((await push(historyId)).status).toBe(204);
    await eventually(() => herald.gateway.store.state.get(seenKey('dup-1')));
    expect(await herald.gateway.store.state.get(seenKey('dup-1'))).toMatchObject({ outcome: 'duplicate' });
    expect(relay.requests.map((r) => r.headers['idempotency-key'])).toEqual([`gmail:${ACCOUNT}:dup-1`]);
    expect(runsFor('dup-1')).toHaveLength(1);
    expect(herald.logs.filter((l) => l.msg === 'gmail hook refused the message; not retried')).toHaveLength(0);
  });

  it('a revoked access token is dropped and the call made once more with a fresh one', async () => {
    const first = google.addMail({ id: 'tok-1', subject: 'before', text: 'x' });
    expect((await push(first)).status).toBe(204);
    await eventually(() => runsFor('tok-1').length === 1);
    expect(google.issued).toHaveLength(1);

    google.revokeAccessTokens();
    const second = google.addMail({ id: 'tok-2', subject: 'after revocation', text: 'x' });
    expect((await push(second)).status).toBe(204);
    await eventually(() => runsFor('tok-2').length === 1);
    expect(google.issued).toHaveLength(2);
    const reads = google.calls('GET', '/gmail/v1/users/me/history').slice(-2);
    expect(reads.map((r) => r.headers.authorization)).toEqual([`Bearer ${google.issued[0]}`, `Bearer ${google.issued[1]}`]);
    expect(herald.logs.filter((l) => l.msg === 'gmail processing failed; retrying')).toHaveLength(0);
  });

  it('handled-message records older than dedupeDays (30) are pruned at start', async () => {
    const last = [google.addMail({ id: 'p-1', text: 'x' }), google.addMail({ id: 'p-2', text: 'x' })].at(-1)!;
    expect((await push(last)).status).toBe(204);
    await eventually(() => runsFor('p-2').length === 1);
    sqliteDb(herald.gateway.store).prepare('UPDATE state SET updated_at = ? WHERE key = ?').run(Date.now() - 31 * 86_400_000, seenKey('p-1'));

    herald = await herald.restart();
    heraldUrl = herald.url;
    expect(await herald.gateway.store.state.get(seenKey('p-1'))).toBeUndefined();
    expect(await herald.gateway.store.state.get(seenKey('p-2'))).toMatchObject({ outcome: 'posted' });
    expect(herald.logs.find((l) => l.msg === 'gmail handled-message records pruned')).toMatchObject({ pruned: 1 });
  });

  it('recovery never reports mail received before the dedupe window (its record may be pruned)', async () => {
    google.addMail({ id: 'ancient-1', subject: 'from last quarter', text: 'x', receivedAt: Date.now() - 40 * 86_400_000 });
    google.staleBefore = google.historyId + 100;
    const last = google.addMail({ id: 'recent-1', subject: 'today', text: 'x' });
    expect((await push(last)).status).toBe(204);
    await eventually(() => runsFor('recent-1').length === 1);
    expect(runsFor('ancient-1')).toHaveLength(0);
    expect(relay.requests.map((r) => r.json.messages[0].id)).toEqual(['recent-1']);
  });

  it('sent and draft messages are skipped', async () => {
    google.addMail({ id: 'sent-1', labels: ['SENT', 'INBOX'], subject: 'my own mail', text: 'x' });
    google.addMail({ id: 'draft-1', labels: ['DRAFT', 'INBOX'], subject: 'a draft', text: 'x' });
    const last = google.addMail({ id: 'in-1', subject: 'real mail', text: 'x' });
    expect((await push(last)).status).toBe(204);
    await eventually(() => runsFor('in-1').length === 1);
    expect(runsFor('sent-1')).toHaveLength(0);
    expect(runsFor('draft-1')).toHaveLength(0);
    expect(relay.requests.map((r) => r.json.messages[0].id)).toEqual(['in-1']);
  });

  it('a stale history id recovers by listing recent messages', async () => {
    google.staleBefore = google.historyId + 100; // every stored id is now "too old"
    const last = google.addMail({ id: 'stale-1', subject: 'after a long outage', text: 'x' });
    expect((await push(last)).status).toBe(204);
    await eventually(() => runsFor('stale-1').length === 1);
    const listing = google.calls('GET', '/gmail/v1/users/me/messages').find((r) => r.path === '/gmail/v1/users/me/messages')!;
    expect(listing.query).toMatchObject({ labelIds: 'INBOX', maxResults: '10' });

    // afterwards history works from the new id again: a new message arrives through history
    google.staleBefore = 0;
    const next = google.addMail({ id: 'fresh-1', subject: 'back to normal', text: 'x' });
    expect((await push(next)).status).toBe(204);
    await eventually(() => runsFor('fresh-1').length === 1);
    expect(runsFor('stale-1')).toHaveLength(1);
  });

  it('a wrong or missing push token gets 401, a malformed push 400, and nothing is processed', async () => {
    const historyId = google.addMail({ id: 'x-1', text: 'x' });
    expect((await push(historyId, 'wrong-token')).status).toBe(401);
    expect((await fetch(watcher().url!, { method: 'POST', body: JSON.stringify(pushEnvelope(ACCOUNT, historyId)) })).status).toBe(401);
    expect((await push(historyId, PUSH_TOKEN, { message: { data: 'not base64 json' } })).status).toBe(400);
    expect((await push(historyId, PUSH_TOKEN, { nothing: true })).status).toBe(400);
    expect((await fetch(`${watcher().url}?token=${PUSH_TOKEN}`, { method: 'GET' })).status).toBe(405);
    expect(relay.requests).toHaveLength(0);
  });

  it('the body is cut at maxBytes, HTML becomes text, and no secret or body reaches the logs', async () => {
    const long = 'The secret plan is '.padEnd(200, 'z');
    const a = google.addMail({ id: 'long-1', subject: 'long', text: long });
    const b = google.addMail({ id: 'html-1', subject: 'html', html: '<p>Hello <b>there</b></p><p>Second paragraph</p>' });
    expect((await push(b)).status).toBe(204);
    await eventually(() => runsFor('html-1').length === 1 && runsFor('long-1').length === 1);
    const posted = Object.fromEntries(relay.requests.map((r) => [r.json.messages[0].id, r.json.messages[0]]));
    expect(posted['long-1'].bodyTruncated).toBe(true);
    expect(Buffer.byteLength(posted['long-1'].body)).toBeLessThanOrEqual(64);
    expect(posted['html-1'].body).toContain('Hello there');
    expect(posted['html-1'].body).not.toContain('<p>');
    expect(a).toBeTruthy();

    const logs = herald.rawLogs();
    for (const secret of [CLIENT_SECRET, REFRESH_TOKEN, ACCESS_TOKEN, PUSH_TOKEN, HOOK_TOKEN, 'The secret plan']) expect(logs).not.toContain(secret);
  });

  it('after a restart, old notifications make no new runs and new mail still arrives', async () => {
    const first = google.addMail({ id: 'r-1', subject: 'before restart', text: 'x' });
    expect((await push(first)).status).toBe(204);
    await eventually(() => runsFor('r-1').length === 1);
    herald = await herald.restart();
    heraldUrl = herald.url;
    await eventually(() => watcher()?.url);
    expect((await push(first)).status).toBe(204);
    const second = google.addMail({ id: 'r-2', subject: 'after restart', text: 'x' });
    expect((await push(second)).status).toBe(204);
    await eventually(() => runsFor('r-2').length === 1);
    expect(runsFor('r-1')).toHaveLength(1);
  });
});
