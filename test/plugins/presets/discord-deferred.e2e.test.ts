import { generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyKey } from 'discord-interactions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { completion, fakeModel } from '../../models/fake-openai.js';

/**
 * The discord preset's deferred answer, live: an interaction whose reply misses replyWaitMs is
 * answered "is thinking…" (type 5, or 6 for a button), and the reply, once ready, goes through
 * the durable outbox to a fake of Discord's API on 127.0.0.1 that records it: a slash command's
 * edits the original response (`PATCH /webhooks/{application.id}/{interaction.token}/messages/@original`,
 * https://discord.com/developers/docs/interactions/receiving-and-responding#edit-original-interaction-response),
 * a button's is a follow-up message (`POST /webhooks/{application.id}/{interaction.token}`,
 * https://discord.com/developers/docs/interactions/receiving-and-responding#create-followup-message).
 * The token authenticates: no bot token is configured. "Interaction tokens are valid for 15
 * minutes": an older interaction's reply is not sent. Requests are signed with Ed25519 as Discord
 * signs them, and discord-interactions' verifyKey accepts them.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const PUBLIC_KEY = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');
const APPLICATION_ID = '1012345678901234567';
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };

let discord: FakeServer;
let model: FakeServer;
let herald: TestApp;
let release: () => void = () => {};
let held: Promise<void> | undefined;
let failing = false;
let empty = false;
/** the tokens of the interactions answered above, none of which the store may keep once their delivery is final */
const tokens: string[] = [];

const fixture = (index: number) => JSON.parse(fs.readFileSync(path.join(root, 'plugins/discord/fixtures/discord.json'), 'utf8'))[index].payload as Record<string, unknown>;

/** a Discord snowflake made `agoMs` ago (https://discord.com/developers/docs/reference#snowflakes) */
const snowflake = (agoMs = 0) => String((BigInt(Date.now() - agoMs - 1_420_070_400_000) << 22n) | BigInt(Math.floor(Math.random() * 4096)));

function signed(payload: unknown) {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = ed25519Sign(null, Buffer.from(timestamp + body), privateKey).toString('hex');
  return { body, headers: { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp } };
}

async function post(payload: Record<string, unknown>) {
  const request = signed(payload);
  expect(await verifyKey(request.body, request.headers['x-signature-ed25519'], request.headers['x-signature-timestamp'], PUBLIC_KEY)).toBe(true);
  const res = await herald.request('/hooks/discord', { method: 'POST', headers: request.headers, body: request.body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  discord = await startFakeServer((req) => {
    // Discord answers an edit or a follow-up with the message (https://discord.com/developers/docs/resources/message#message-object)
    if (req.path.startsWith('/api/v10/webhooks/')) return { body: { id: snowflake(), content: req.json?.content, type: 0 } };
    return { status: 404, body: { message: '404: Not Found', code: 0 } };
  });
  model = await startFakeServer(async () => {
    await held;
    // OpenAI's error shape (https://platform.openai.com/docs/guides/error-codes): a request the provider refuses
    if (empty) return { body: completion('') };
    if (failing) return { status: 400, body: { error: { message: 'secret-ish provider detail', type: 'invalid_request_error', code: null } } };
    return { body: completion('The Gitrog Monster: {3}{B}{G}, a 6/6 deathtouch frog.') };
  });
  herald = await testApp({
    ...fakeModel(model),
    channels: { discord: { baseUrl: `${discord.url}/api/v10` } },
    // every request's payload retained for replay: the interaction's token is masked in it
    hooks: { mappingsDir: './no-mappings', retainPayloads: true, presets: [{ name: 'discord', publicKey: PUBLIC_KEY, replyWaitMs: 1 }] },
  });
});

afterAll(async () => {
  release();
  await herald?.stop();
  await model?.close();
  await discord?.close();
});

const calls = (token: string) => discord.requests.filter((r) => r.path.includes(`/webhooks/${APPLICATION_ID}/${token}`));

describe('discord: a deferred answer, delivered later', () => {
  it("a slash command's reply edits the original response, through the outbox, with no bot token; the token is never shown", async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const token = `aW50ZXJhY3Rpb246${snowflake()}OkVkaXRPcmlnaW5hbA`;
    tokens.push(token);
    const answer = await post({ ...fixture(1), id: snowflake(), application_id: APPLICATION_ID, token });
    expect(answer).toMatchObject({ status: 200, json: { type: 5 } });
    release();
    held = undefined;
    const [edit] = await eventually(async () => (calls(token).length ? calls(token) : undefined));
    expect(edit).toMatchObject({ method: 'PATCH', path: `/api/v10/webhooks/${APPLICATION_ID}/${token}/messages/@original`, json: { content: 'The Gitrog Monster: {3}{B}{G}, a 6/6 deathtouch frog.', allowed_mentions: { parse: [] } } });
    expect(edit!.headers.authorization).toBeUndefined();
    const delivery = await eventually(async () => {
      const { data } = (await (await herald.request('/admin/deliveries', { headers: admin })).json()) as { data: { to: string | null; status: string }[] };
      return data.find((d) => d.status === 'delivered' && d.to?.startsWith('interaction:'));
    });
    expect(delivery.to).toMatch(new RegExp(`^interaction:${APPLICATION_ID}:\\d+#token=…$`));
    expect(JSON.stringify(await (await herald.request('/admin/deliveries', { headers: admin })).json())).not.toContain(token);
    const runs = (await (await herald.request('/admin/runs', { headers: admin })).json()) as { data: { id: string }[] };
    for (const run of runs.data) expect(JSON.stringify(await (await herald.request(`/admin/runs/${run.id}`, { headers: admin })).json())).not.toContain(token);
    expect(herald.rawLogs()).not.toContain(token);
  });

  it('the slash command fixture carries application_id, as Discord always sends it; an interaction without it is refused with a 400 naming the field', async () => {
    const published = fixture(1);
    // Discord always sends application_id (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-structure)
    expect(published.application_id).toMatch(/^\d+$/);
    const missing: Record<string, unknown> = { ...published, id: snowflake(), token: `aW50ZXJhY3Rpb246${snowflake()}TWlzc2luZw` };
    delete missing.application_id;
    const refused = await post(missing);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toBe("payload does not match the mapping schema: / must have required property 'application_id'");
  });

  it("a button's reply is a follow-up message, leaving the message with the button as it was", async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const token = `aW50ZXJhY3Rpb246${snowflake()}T0tGb2xsb3d1cA`;
    const answer = await post({ ...fixture(2), id: snowflake(), application_id: APPLICATION_ID, token });
    expect(answer).toMatchObject({ status: 200, json: { type: 6 } });
    release();
    held = undefined;
    const [followup] = await eventually(async () => (calls(token).length ? calls(token) : undefined));
    expect(followup).toMatchObject({ method: 'POST', path: `/api/v10/webhooks/${APPLICATION_ID}/${token}`, query: { wait: 'true' }, json: { content: expect.stringContaining('Gitrog') } });
  });

  it('a run that fails edits the original response into a short error line, no cause in it', async () => {
    failing = true;
    const token = `aW50ZXJhY3Rpb246${snowflake()}RmFpbGVk`;
    try {
      const answer = await post({ ...fixture(1), id: snowflake(), application_id: APPLICATION_ID, token });
      expect(answer).toMatchObject({ status: 200, json: { type: 5 } });
      const [edit] = await eventually(async () => (calls(token).length ? calls(token) : undefined));
      expect(edit).toMatchObject({ method: 'PATCH', path: `/api/v10/webhooks/${APPLICATION_ID}/${token}/messages/@original`, json: { content: 'Sorry, this request failed.' } });
      expect(JSON.stringify(edit!.json)).not.toContain('secret-ish');
    } finally {
      failing = false;
    }
    const runs = (await (await herald.request('/admin/runs?status=failed', { headers: admin })).json()) as { data: { status: string }[] };
    expect(runs.data.some((r) => r.status === 'failed')).toBe(true);
  });

  it('a run that answers nothing edits it into the error line too', async () => {
    empty = true;
    const token = `aW50ZXJhY3Rpb246${snowflake()}RW1wdHk`;
    try {
      const answer = await post({ ...fixture(1), id: snowflake(), application_id: APPLICATION_ID, token });
      expect(answer).toMatchObject({ status: 200, json: { type: 5 } });
      const [edit] = await eventually(async () => (calls(token).length ? calls(token) : undefined));
      expect(edit).toMatchObject({ method: 'PATCH', json: { content: 'Sorry, this request failed.' } });
    } finally {
      empty = false;
    }
  });

  it('an interaction older than its token\'s 15 minutes: nothing is sent, the delivery fails at once', async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const token = `aW50ZXJhY3Rpb246${snowflake()}RXhwaXJlZA`;
    tokens.push(token);
    // Discord signs when it sends; the interaction itself was made 16 minutes before (a relay replaying it late)
    const answer = await post({ ...fixture(1), id: snowflake(16 * 60_000), application_id: APPLICATION_ID, token });
    expect(answer).toMatchObject({ status: 200, json: { type: 5 } });
    release();
    held = undefined;
    const failed = await eventually(async () => {
      // other failed deliveries may be listed with no recipient (a heartbeat's reply to `last`, which no interaction sets)
      const { data } = (await (await herald.request('/admin/deliveries', { headers: admin })).json()) as { data: { to: string | null; status: string; attempts: number; lastError: string | null }[] };
      return data.find((d) => d.status === 'failed' && d.to?.startsWith('interaction:'));
    });
    expect(failed.lastError).toContain('interaction token expired');
    expect(failed.attempts).toBe(1);
    expect(calls(token)).toEqual([]);
  });

  it("once the reply is delivered the run's stored action keeps no token (read through the store, also after a restart), the retained payload none at all; a replay of it answers nothing", async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    const token = `aW50ZXJhY3Rpb246${snowflake()}UnVuQWN0aW9u`;
    tokens.push(token);
    const interactionId = snowflake();
    const answer = await post({ ...fixture(1), id: interactionId, application_id: APPLICATION_ID, token });
    expect(answer).toMatchObject({ status: 200, json: { type: 5 } });
    release();
    held = undefined;
    const delivered = await eventually(async () => (await herald.gateway.store.deliveries.list({ limit: 100 })).find((d) => d.status === 'delivered' && d.to?.startsWith(`interaction:${APPLICATION_ID}:${interactionId}#`)));
    expect(calls(token)).toHaveLength(1);
    const runId = delivered.runId!;
    const scrubbed = `interaction:${APPLICATION_ID}:${interactionId}#token=…`;
    expect(await eventually(async () => ((await herald.gateway.store.runs.get(runId))!.action.to === scrubbed ? true : undefined))).toBe(true);

    // the retained payload (the raw interaction, kept for replay) has `…` in place of the token, the rest as Discord sent it
    const receipts = (await (await herald.request('/admin/receipts?retained=true', { headers: admin })).json()) as { data: { id: string; runId: string | null }[] };
    const receipt = receipts.data.find((r) => r.runId === runId)!;
    const detail = (await (await herald.request(`/admin/receipts/${receipt.id}`, { headers: admin })).json()) as { payload: { body: string } };
    expect(JSON.parse(detail.payload.body)).toEqual({ ...fixture(1), id: interactionId, application_id: APPLICATION_ID, token: '…' });

    // nothing an operator reads holds it: the run, the lists, the receipt, the delivery (the console reads these)
    const seen = await Promise.all(
      [`/admin/runs/${runId}`, '/admin/runs', `/admin/receipts/${receipt.id}`, '/admin/receipts', '/admin/deliveries', `/admin/deliveries/${delivered.id}`].map(async (url) => {
        const res = await herald.request(url, { headers: admin });
        expect(res.status).toBe(200);
        return res.text();
      }),
    );
    for (const body of seen) expect(body).not.toContain(token);

    // a replay of the retained payload runs again, but has no token to answer with: nothing is sent, its delivery says why
    const replayed = await herald.request(`/admin/receipts/${receipt.id}/replay`, { method: 'POST', headers: admin });
    expect(replayed.status).toBeLessThan(300);
    const failed = await eventually(async () =>
      (await herald.gateway.store.deliveries.list({ limit: 100 })).find((d) => d.runId !== runId && d.status === 'failed' && d.to === scrubbed),
    );
    expect(failed.lastError).toContain('the interaction token is no longer kept');
    expect(discord.requests.filter((r) => r.path.includes('…') || r.path.includes('%E2%80%A6'))).toEqual([]);

    // a run made more than 15 minutes ago (its reply answered in the hook's response: no delivery) keeps no token past them
    const stale = `aW50ZXJhY3Rpb246${snowflake()}U3RhbGU`;
    tokens.push(stale);
    const run = (await herald.gateway.store.runs.get(runId))!;
    const madeAt = Date.now() - 16 * 60_000;
    await herald.gateway.store.runs.insert({
      ...run, id: 'answered-in-place', sessionKey: 'hook:discord:answered', status: 'succeeded', reply: 'done', createdAt: madeAt, startedAt: madeAt, finishedAt: madeAt + 1000,
      action: { ...run.action, to: `interaction:${APPLICATION_ID}:${snowflake(16 * 60_000)}#token=${stale}`, deliver: false },
    });

    // after a restart, read through the store: neither run's action holds its token
    herald = await herald.restart();
    expect((await herald.gateway.store.runs.get(runId))!.action.to).toBe(scrubbed);
    const swept = await eventually(async () => {
      const r = await herald.gateway.store.runs.get('answered-in-place');
      return r?.action.to?.endsWith('#token=…') ? r : undefined;
    });
    expect(JSON.stringify(swept)).not.toContain(stale);
    expect(JSON.stringify(await herald.gateway.store.runs.get(runId))).not.toContain(token);
  });

  it("an operator's abandon of a pending reply ends it: the run's action keeps its token no longer either", async () => {
    const token = `aW50ZXJhY3Rpb246${snowflake()}QWJhbmRvbg`;
    tokens.push(token);
    const to = `interaction:${APPLICATION_ID}:${snowflake()}#token=${token}`;
    const madeAt = Date.now();
    // an earlier interaction's run to copy (not a heartbeat's delivery, which has none)
    const some = (await herald.gateway.store.deliveries.list({ limit: 100 })).find((d) => d.runId && d.kind === 'run');
    const run = (await herald.gateway.store.runs.get(some!.runId!))!;
    await herald.gateway.store.runs.insert({ ...run, id: 'abandoned-reply', sessionKey: 'hook:discord:abandoned', status: 'succeeded', reply: 'late', createdAt: madeAt, startedAt: madeAt, finishedAt: madeAt, action: { ...run.action, to } });
    // waiting for a retry an hour away (Discord answered 503 before)
    await herald.gateway.store.deliveries.insert({
      id: 'abandoned-reply', runId: 'abandoned-reply', kind: 'run', channel: 'discord', to, text: 'late', sessionKey: 'hook:discord:abandoned', agentId: 'main', status: 'pending', attempts: 1, partsSent: 0,
      lastError: 'discord: 503', nextAttemptAt: madeAt + 3_600_000, leaseOwner: null, leaseUntil: null, createdAt: madeAt, updatedAt: madeAt, deliveredAt: null,
    });
    expect((await herald.request('/admin/deliveries/abandoned-reply/abandon', { method: 'POST', headers: admin })).status).toBe(200);
    expect((await herald.gateway.store.deliveries.get('abandoned-reply'))!.to).toMatch(/#token=…$/);
    expect((await herald.gateway.store.runs.get('abandoned-reply'))!.action.to).toMatch(/#token=…$/);
    expect(calls(token)).toEqual([]);
  });

  it('a final delivery keeps no token in the store, also after a restart; a pending one past 15 minutes fails as expired; a retry says why it cannot be', async () => {
    const interactions = async () => (await herald.gateway.store.deliveries.list({ limit: 100 })).filter((d) => d.to?.startsWith('interaction:') || d.to?.startsWith('followup:'));
    const final = await interactions();
    expect(final.filter((d) => d.status === 'delivered').length).toBeGreaterThanOrEqual(1);
    expect(final.filter((d) => d.status === 'failed').length).toBeGreaterThanOrEqual(1);
    for (const d of final) expect(d.to).toMatch(/^(interaction|followup):\d+:\d+#token=…$/);
    for (const token of tokens) expect(JSON.stringify(final)).not.toContain(token);

    // a reply waiting for a retry when its interaction's 15 minutes ran out (queued 16 minutes ago, its next attempt later)
    const waiting = `aW50ZXJhY3Rpb246${snowflake()}V2FpdGluZw`;
    const queuedAt = Date.now() - 16 * 60_000;
    await herald.gateway.store.deliveries.insert({
      id: 'waiting-for-retry', runId: null, kind: 'tool', channel: 'discord', to: `interaction:${APPLICATION_ID}:${snowflake(16 * 60_000)}#token=${waiting}`,
      text: 'late', sessionKey: 'main', agentId: 'main', status: 'pending', attempts: 1, partsSent: 0, lastError: 'discord: 503',
      nextAttemptAt: Date.now() + 3_600_000, leaseOwner: null, leaseUntil: null, createdAt: queuedAt, updatedAt: queuedAt, deliveredAt: null,
    });
    herald = await herald.restart();
    const expired = await eventually(async () => {
      const d = await herald.gateway.store.deliveries.get('waiting-for-retry');
      return d?.status === 'failed' ? d : undefined;
    });
    expect(expired).toMatchObject({ lastError: expect.stringContaining('interaction token expired'), to: expect.stringMatching(/#token=…$/) });
    expect(calls(waiting)).toEqual([]);
    // read again after the restart, through the store port: no token of any interaction
    const stored = JSON.stringify(await interactions());
    for (const token of [...tokens, waiting]) expect(stored).not.toContain(token);

    const failedOne = (await interactions()).find((d) => d.status === 'failed' && d.id !== 'waiting-for-retry')!;
    const res = await herald.request(`/admin/deliveries/${failedOne.id}/retry`, { method: 'POST', headers: admin });
    expect(res.status).toBe(409);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ ok: false, error: expect.stringContaining('cannot be retried: the interaction token it answered with expired'), code: 'HERALD_DELIVERY_NOT_RETRYABLE' });
    // a bulk retry does not pick it up either
    const bulk = await herald.request('/admin/deliveries/retry', { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ channel: 'discord', dryRun: true }) });
    expect(((await bulk.json()) as { count: number }).count).toBe(0);
  });
});
