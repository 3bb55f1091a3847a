import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError } from '../../src/plugin-sdk/sdk.js';
import { retryDelay } from '../../src/runtime/delivery/retry-delay.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { createChannel, message } from './channel.case.js';
import { TELEGRAM_TOKEN, channelCases } from './channel-cases.js';

const caseOf = (id: string) => channelCases.find((c) => c.plugin.id === id)!;
let fake: FakeServer | undefined;
afterEach(async () => fake?.close());
const failureOf = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ChannelError);

describe('signal: errors told apart by their message (signal-cli-rest-api answers 400 for nearly all)', () => {
  const c = caseOf('signal');
  // texts signal-cli-rest-api passes on from signal-cli (src/api/api.go: `c.JSON(400, Error{Msg: err.Error()})`)
  const cases: [string, boolean][] = [
    ['Failed to send message due to an unregistered user\n', false],
    ['Invalid phone number: The string supplied did not seem to be a phone number.', false],
    ['Invalid group id', false],
    ["Couldn't process request - please provide at least one recipient", false],
    ['Post "http://127.0.0.1:6001/api/v1/rpc": dial tcp 127.0.0.1:6001: connect: connection refused', true],
    ['Failed to send message: Network failure (java.net.SocketTimeoutException: timeout)', true],
    ['Failed to send message due to rate limiting', true],
    ['Failed to send (Status code 502 from Signal server)', true],
  ];
  for (const [error, retryable] of cases) {
    it(`${retryable ? 'retries' : 'fails at once on'}: ${error.trim().slice(0, 60)}`, async () => {
      fake = await startFakeServer(() => ({ status: 400, body: { error } }));
      const channel = await createChannel(c, fake.url);
      const failure = await failureOf(channel.send(message('hi', c.to)));
      expect(failure).toBeInstanceOf(ChannelError);
      expect(failure!.retryable).toBe(retryable);
    });
  }

  it('reads a 201 that is an array of per-recipient results, and a per-recipient error fails the part', async () => {
    fake = await startFakeServer(() => ({ status: 201, body: [{ timestamp: 1700000000001 }] }));
    let channel = await createChannel(c, fake.url);
    expect((await channel.send(message('hi', c.to))).messageIds).toEqual(['1700000000001']);
    await fake.close();
    fake = await startFakeServer(() => ({ status: 201, body: [{ timestamp: 1700000000002, errors: ['Network failure for +4915112345678'] }] }));
    channel = await createChannel(c, fake.url);
    const parted: number[] = [];
    const failure = await failureOf(channel.send(message('hi', c.to, { onPartSent: async (i) => void parted.push(i) })));
    expect(failure!.retryable).toBe(true);
    expect(failure!.message).toContain('Network failure');
    expect(parted).toEqual([]);
  });
});

describe('slack escapes its control characters', () => {
  it('sends & < > as &amp; &lt; &gt;, so echoed content neither garbles nor notifies', async () => {
    const c = caseOf('slack');
    fake = await startFakeServer(() => c.ok);
    const channel = await createChannel(c, fake.url);
    await channel.send(message('A & B <!channel> <!here> <@U0123> 1 < 2 > 0 &amp;', c.to));
    expect(fake.requests[0]!.json.text).toBe('A &amp; B &lt;!channel&gt; &lt;!here&gt; &lt;@U0123&gt; 1 &lt; 2 &gt; 0 &amp;amp;');
  });
});

describe('discord mentions', () => {
  const c = caseOf('discord');
  it('pings nobody by default: allowed_mentions {parse: []}', async () => {
    fake = await startFakeServer(() => c.ok);
    const channel = await createChannel(c, fake.url);
    await channel.send(message('@everyone @here <@&123> <@456>', c.to));
    expect(fake.requests[0]!.json.allowed_mentions).toEqual({ parse: [] });
  });
  it('takes allowedMentions from the channel config', async () => {
    fake = await startFakeServer(() => c.ok);
    const channel = await createChannel({ ...c, config: (url) => ({ ...c.config(url), allowedMentions: { parse: ['users'] } }) }, fake.url);
    await channel.send(message('<@456>', c.to));
    expect(fake.requests[0]!.json.allowed_mentions).toEqual({ parse: ['users'] });
  });
});

describe('telegram: a group upgraded to a supergroup', () => {
  it('follows migrate_to_chat_id and sends there', async () => {
    const c = caseOf('telegram');
    // https://core.telegram.org/bots/api#responseparameters
    fake = await startFakeServer((r) =>
      r.json.chat_id === '-1001234567890'
        ? { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', parameters: { migrate_to_chat_id: -1009876543210 } } }
        : { body: { ok: true, result: { message_id: 7, chat: { id: r.json.chat_id } } } },
    );
    const channel = await createChannel(c, fake.url);
    const result = await channel.send(message('hello', c.to));
    expect(result.messageIds).toEqual(['7']);
    expect(fake.requests.map((r) => String(r.json.chat_id))).toEqual(['-1001234567890', '-1009876543210']);
    expect(fake.requests[1]!.path).toBe(`/bot${TELEGRAM_TOKEN}/sendMessage`);
  });
});

describe('mattermost: post size from the server', () => {
  const c = caseOf('mattermost');
  const runes = (s: string) => [...s].length;
  it('splits at a legacy server\'s 4000 runes, counting an emoji as one', async () => {
    fake = await startFakeServer((r) =>
      r.path === '/api/v4/config/client'
        ? { body: { MaxPostSize: '4000', Version: '4.10.0' } }
        : runes(r.json.message) > 4000
          ? { status: 400, body: { id: 'model.post.is_valid.msg.app_error', message: 'Invalid Message', status_code: 400 } }
          : { status: 201, body: { id: `p${fake!.requests.length}` } },
    );
    const channel = await createChannel(c, fake.url);
    const text = `${'😀'.repeat(3000)} ${'word '.repeat(600)}`;
    await channel.send(message(text, c.to));
    const posts = fake.requests.filter((r) => r.path === '/api/v4/posts');
    expect(posts.length).toBe(2);
    for (const p of posts) expect(runes(p.json.message)).toBeLessThanOrEqual(4000);
    expect(fake.requests.filter((r) => r.path === '/api/v4/config/client')).toHaveLength(1);
  });
  it('assumes the legacy 4000 when the server will not say', async () => {
    fake = await startFakeServer((r) => (r.path === '/api/v4/config/client' ? { status: 404, body: { message: 'not found' } } : { status: 201, body: { id: 'p' } }));
    const channel = await createChannel(c, fake.url);
    await channel.send(message('x '.repeat(3000), c.to));
    expect(fake.requests.filter((r) => r.path === '/api/v4/posts')).toHaveLength(2);
  });
});

describe('whatsapp rate limits come from the JSON error code', () => {
  const c = caseOf('whatsapp');
  it('retries code 131056 (pair rate limit) even with a long message, fails 131030 at once', async () => {
    let code = 131056;
    fake = await startFakeServer(() => ({ status: 400, body: { error: { message: `(#${code}) ${'x'.repeat(400)}`, type: 'OAuthException', code, fbtrace_id: 'A' } } }));
    const channel = await createChannel(c, fake.url);
    expect((await failureOf(channel.send(message('hi', c.to))))!.retryable).toBe(true);
    code = 131030;
    expect((await failureOf(channel.send(message('hi', c.to))))!.retryable).toBe(false);
  });
});

describe('platform retry hints', () => {
  it('a Retry-After past the computed cap is honoured whole', () => {
    const policy = { backoff: 'exponential' as const, initialMs: 2000, maxMs: 300_000 };
    expect(retryDelay(3, policy, 3_600_000)).toBe(3_600_000);
    expect(retryDelay(50, policy, undefined, () => 1)).toBe(300_000);
  });
});

describe('one time limit per request', () => {
  it('a long reply to a slow platform is not cut short: each part gets the whole limit', async () => {
    const c = caseOf('telegram');
    // each part answers well within the limit; all of them together take longer than it
    fake = await startFakeServer(() => ({ ...(c.ok as object), delayMs: 300 }));
    const channel = await createChannel(c, fake.url);
    const text = Array.from({ length: 5 }, (_, i) => `${i + 1}. ${'word '.repeat(800)}`).join('\n\n');
    const result = await channel.send(message(text, c.to, { requestTimeoutMs: 1200 }));
    expect(result.messageIds).toHaveLength(5);
  });

  it('the teams token request has its own limit too', async () => {
    const c = caseOf('msteams');
    fake = await startFakeServer((r) => (c.isSend(r) ? c.ok : r.path === '/token' ? 'hang' : { status: 404 }));
    const channel = await createChannel(c, fake.url);
    const failure = await failureOf(channel.send(message('hi', c.to, { requestTimeoutMs: 200 })));
    expect(failure!.retryable).toBe(true);
    expect(failure!.message).toContain('timed out');
  });
});

describe('threads, channel by channel', () => {
  it('telegram: reply:<id> replies with the first part only; a topic id holds every part; anything else fails', async () => {
    const c = caseOf('telegram');
    fake = await startFakeServer(() => c.ok);
    const channel = await createChannel(c, fake.url);
    const text = `${'a '.repeat(1500)}\n\n${'b '.repeat(1500)}`;
    await channel.send(message(text, c.to, { threadId: 'reply:99' }));
    expect(fake.requests.map((r) => r.json.reply_parameters)).toEqual([{ message_id: 99, allow_sending_without_reply: true }, undefined]);
    fake.requests.length = 0;
    await channel.send(message(text, c.to, { threadId: '7' }));
    expect(fake.requests.map((r) => r.json.message_thread_id)).toEqual([7, 7]);
    const failure = await failureOf(channel.send(message('hi', c.to, { threadId: 'general' })));
    expect(failure!.retryable).toBe(false);
    expect(failure!.message).toContain('threadId');
  });

  it('discord: only the first part carries the message reference', async () => {
    const c = caseOf('discord');
    fake = await startFakeServer(() => c.ok);
    const channel = await createChannel(c, fake.url);
    await channel.send(message(`${'a '.repeat(900)}\n\n${'b '.repeat(900)}`, c.to, { threadId: '123' }));
    expect(fake.requests.map((r) => r.json.message_reference?.message_id)).toEqual(['123', undefined]);
  });

  it('imessage: a reply (selectedMessageGuid) with the private API; apple-script cannot and ignores it', async () => {
    const c = caseOf('imessage');
    fake = await startFakeServer(() => c.ok);
    const privateApi = await createChannel({ ...c, config: (url) => ({ ...c.config(url), method: 'private-api' }) }, fake.url);
    await privateApi.send(message('hi', c.to, { threadId: 'p:0/GUID-1' }));
    expect(fake.requests[0]!.json).toMatchObject({ selectedMessageGuid: 'p:0/GUID-1', partIndex: 0, method: 'private-api' });
    const appleScript = await createChannel(c, fake.url);
    await appleScript.send(message('hi', c.to, { threadId: 'p:0/GUID-1' }));
    expect(fake.requests[1]!.json.selectedMessageGuid).toBeUndefined();
  });

  it('msteams: a personal chat replies to the activity without a conversation suffix', async () => {
    const c = caseOf('msteams');
    fake = await startFakeServer((r) => (c.isSend(r) ? c.ok : c.other!(r)));
    const channel = await createChannel(c, fake.url);
    await channel.send(message('hi', 'a:1personal', { threadId: 'act-1' }));
    const sent = fake.requests.find((r) => c.isSend(r))!;
    expect(sent.path).toBe('/teams/v3/conversations/a%3A1personal/activities/act-1');
    expect(sent.json.replyToId).toBe('act-1');
  });
});
