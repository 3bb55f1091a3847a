import { afterEach, describe, expect, it } from 'vitest';
import { standardWebhookSignature } from '../../plugins/webhook/channel.js';
import { splitMessage } from '../../src/plugin-sdk/split-message.js';
import { ChannelError } from '../../src/plugin-sdk/sdk.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { createChannel, message } from './channel.case.js';
import { TEAMS_ACCESS_TOKEN, WEBHOOK_SECRET, channelCases } from './channel-cases.js';
import { createHmac } from 'node:crypto';

const caseOf = (id: string) => channelCases.find((c) => c.plugin.id === id)!;
let fake: FakeServer | undefined;
afterEach(async () => fake?.close());

describe('splitMessage', () => {
  it('keeps a short text whole', () => {
    expect(splitMessage('hello', 10)).toEqual(['hello']);
  });
  it('prefers a paragraph break, then a line break, then a space, then a hard cut', () => {
    expect(splitMessage('aaaa\n\nbbbb\ncc', 11)).toEqual(['aaaa', 'bbbb\ncc']);
    expect(splitMessage('aaaa\nbbbb cc', 9)).toEqual(['aaaa', 'bbbb cc']);
    expect(splitMessage('aaaa bbbb', 6)).toEqual(['aaaa', 'bbbb']);
    expect(splitMessage('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });
});

describe('webhook signing', () => {
  it('matches the Standard Webhooks reference vector', () => {
    const signature = standardWebhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs id.timestamp.body of the request actually sent, verifiable by the receiver', async () => {
    fake = await startFakeServer(() => ({ status: 200, body: {} }));
    const channel = await createChannel(caseOf('webhook'), fake.url);
    await channel.send(message('signed reply', ''));
    const r = fake.requests[0]!;
    const key = Buffer.from(WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`).digest('base64');
    expect(r.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(r.json.to).toBeNull();
  });

  it('sends no signature without a secret', async () => {
    fake = await startFakeServer(() => ({ status: 200, body: {} }));
    const channel = await createChannel({ ...caseOf('webhook'), config: (url) => ({ url }) }, fake.url);
    await channel.send(message('plain', 'x'));
    expect(fake.requests[0]!.headers['webhook-signature']).toBeUndefined();
    expect(fake.requests[0]!.headers['webhook-id']).toBeTruthy();
  });
});

describe('msteams token', () => {
  it('fetches a client-credentials token once and reuses it until it expires', async () => {
    const c = caseOf('msteams');
    fake = await startFakeServer((r) => (c.isSend(r) ? c.ok : c.other!(r)));
    const channel = await createChannel(c, fake.url);
    await channel.send(message('one', c.to));
    await channel.send(message('two', c.to));
    const tokenRequests = fake.requests.filter((r) => r.path === '/token');
    expect(tokenRequests).toHaveLength(1);
    expect(new URLSearchParams(tokenRequests[0]!.body).get('grant_type')).toBe('client_credentials');
    expect(new URLSearchParams(tokenRequests[0]!.body).get('client_id')).toBe('app-id-1');
    expect(fake.requests.filter((r) => c.isSend(r))).toHaveLength(2);
  });

  it('gets a fresh token when the cached one is refused', async () => {
    const c = caseOf('msteams');
    let refused = false;
    let issued = 0;
    fake = await startFakeServer((r) => {
      if (r.path === '/token') return { body: { expires_in: 3599, access_token: `${TEAMS_ACCESS_TOKEN}-${++issued}` } };
      if (r.headers.authorization === `Bearer ${TEAMS_ACCESS_TOKEN}-1` && refused) return { status: 401, body: { message: 'expired' } };
      return c.ok;
    });
    const channel = await createChannel(c, fake.url);
    await channel.send(message('one', c.to));
    refused = true;
    await channel.send(message('two', c.to));
    expect(issued).toBe(2);
    expect(fake.requests.filter((r) => c.isSend(r)).at(-1)!.headers.authorization).toBe(`Bearer ${TEAMS_ACCESS_TOKEN}-2`);
  });
});

describe('idempotency keys', () => {
  it('gives each part of one delivery its own stable key', async () => {
    const c = caseOf('imessage');
    fake = await startFakeServer(() => c.ok);
    const channel = await createChannel(c, fake.url);
    const text = `${'a'.repeat(15000)}\n\n${'b'.repeat(15000)}`;
    await channel.send(message(text, c.to));
    await channel.send(message(text, c.to));
    const keys = fake.requests.map((r) => r.json.tempGuid);
    expect(keys.slice(0, 2)).toEqual(keys.slice(2));
    expect(new Set(keys.slice(0, 2)).size).toBe(2);
  });
});

describe('splitMessage and surrogate pairs', () => {
  it('never cuts an emoji in half when it must cut inside a word', () => {
    const parts = splitMessage('😀'.repeat(5), 3);
    expect(parts.join('')).toBe('😀'.repeat(5));
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(3);
      expect(part).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    }
  });
});

describe('slack transient errors', () => {
  it('retries `rate_limited` and `ratelimited`, fails `not_in_channel` at once', async () => {
    const c = caseOf('slack');
    let error = 'rate_limited';
    fake = await startFakeServer(() => ({ status: 200, body: { ok: false, error } }));
    const channel = await createChannel(c, fake.url);
    for (const [code, retryable] of [['rate_limited', true], ['ratelimited', true], ['not_in_channel', false]] as const) {
      error = code;
      const failure = await channel.send(message('hi', c.to)).catch((e: ChannelError) => e);
      expect(failure).toBeInstanceOf(ChannelError);
      expect((failure as ChannelError).retryable, code).toBe(retryable);
    }
  });
});
