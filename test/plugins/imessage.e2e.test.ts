import { afterEach, describe, expect, it } from 'vitest';
import { ChannelError } from '../../src/plugin-sdk/sdk.js';
import { startFakeServer, type FakeServer, type RecordedRequest, type FakeResponse } from '../helpers/fake-server.js';
import { createChannel, message } from './channel.case.js';
import { IMESSAGE_PASSWORD, channelCases } from './channel-cases.js';

const c = channelCases.find((x) => x.plugin.id === 'imessage')!;
let fake: FakeServer | undefined;
afterEach(async () => fake?.close());

/**
 * A BlueBubbles server as its message router behaves (bluebubbles-server,
 * packages/server/src/server/api/http/api/v1/routers/messageRouter.ts, and the sendText validator):
 * a tempGuid sits in the send cache only while its send runs; a second request for it meanwhile
 * gets 400 "Message is already queued to be sent"; the send is synchronous (200 once Messages
 * took it); a Messages refusal is a 500 IMessageError carrying the failed message.
 * `POST /api/v1/message/query` lists the chat's messages, newest first.
 */
function blueBubbles(behaviour: { holdFirst?: boolean; hangFirst?: boolean; refuse?: boolean } = {}) {
  const sendCache = new Set<string>();
  // the first send runs until the test releases it (Messages taking its time)
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const chat: { guid: string; text: string; isFromMe: boolean; dateCreated: number }[] = [];
  let sends = 0;
  const handler = async (r: RecordedRequest): Promise<FakeResponse> => {
    if (r.query.password !== IMESSAGE_PASSWORD) return { status: 401, body: { status: 401, message: 'You are not authorized to access this resource', error: { type: 'Authentication Error', message: 'Unauthorized' } } };
    if (r.path === '/api/v1/message/query') {
      const after = Number(r.json.after ?? 0);
      return { body: { status: 200, message: 'Successfully fetched messages!', data: chat.filter((m) => m.dateCreated >= after).reverse(), metadata: {} } };
    }
    const { tempGuid, message: text } = r.json;
    if (sendCache.has(tempGuid)) {
      return { status: 400, body: { status: 400, message: "You've made a bad request! Please check your request params & body", error: { type: 'Validation Error', message: `Message is already queued to be sent (Temp GUID: ${tempGuid})!` } } };
    }
    sendCache.add(tempGuid);
    const n = ++sends;
    if (behaviour.holdFirst && n === 1) await held;
    sendCache.delete(tempGuid);
    const sent = { guid: `G${n}`, text, isFromMe: true, dateCreated: Date.now() };
    if (behaviour.refuse) {
      return { status: 500, body: { status: 500, message: 'Message Send Error', error: { type: 'iMessage Error', message: 'Failed to send message! See attached message error code.' }, data: { ...sent, error: 22 } } };
    }
    chat.push(sent);
    if (behaviour.hangFirst && n === 1) return 'hang'; // sent, but the answer never comes back
    return { body: { status: 200, message: 'Message sent!', data: { ...sent, tempGuid, error: 0 } } };
  };
  return { handler, chat, sendCache, release };
}

describe('imessage (BlueBubbles semantics)', () => {
  it('a retry while the earlier send is still running is not counted as sent: it waits, then finds the part in the chat', async () => {
    const bb = blueBubbles({ holdFirst: true });
    fake = await startFakeServer(bb.handler);
    const channel = await createChannel(c, fake.url);
    // the first attempt gives up on its side (here: herald stopping) once BlueBubbles is sending
    const stop = new AbortController();
    const pending = channel.send(message('hello', c.to, { signal: stop.signal, attempt: 1 })).catch((e: ChannelError) => e);
    while (bb.sendCache.size === 0) await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    const first = await pending;
    expect((first as ChannelError).retryable).toBe(true);
    // the retry arrives while the send is still running: "already queued" is a wait, not a success
    const second = await channel.send(message('hello', c.to, { attempt: 2 })).catch((e: ChannelError) => e);
    expect(second).toBeInstanceOf(ChannelError);
    expect((second as ChannelError).retryable).toBe(true);
    expect((second as ChannelError).retryAfterMs).toBeGreaterThan(0);
    // once it is done, the next retry finds the message and sends no copy
    bb.release();
    while (bb.sendCache.size) await new Promise((r) => setTimeout(r, 20));
    const parted: number[] = [];
    const result = await channel.send(message('hello', c.to, { attempt: 3, onPartSent: async (i) => void parted.push(i) }));
    expect(parted).toEqual([0]);
    expect(result.messageIds).toEqual(['G1']);
    expect(bb.chat.map((m) => m.text)).toEqual(['hello']);
  });

  it('a retry after a lost answer does not send the part again', async () => {
    const bb = blueBubbles({ hangFirst: true });
    fake = await startFakeServer(bb.handler);
    const channel = await createChannel(c, fake.url);
    const stop = new AbortController();
    const pending = channel.send(message('only once', c.to, { signal: stop.signal, attempt: 1 })).catch(() => undefined);
    // the part went out, the answer never comes back; herald gives up on it
    while (bb.chat.length === 0) await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    await pending;
    await channel.send(message('only once', c.to, { attempt: 2 }));
    expect(bb.chat.map((m) => m.text)).toEqual(['only once']);
  });

  it('a retry sends the part when the earlier attempt did not get through', async () => {
    const bb = blueBubbles();
    fake = await startFakeServer(bb.handler);
    const channel = await createChannel(c, fake.url);
    await channel.send(message('second try', c.to, { attempt: 2 }));
    expect(bb.chat.map((m) => m.text)).toEqual(['second try']);
    expect(fake.requests.map((r) => r.path)).toEqual(['/api/v1/message/query', '/api/v1/message/text']);
  });

  it('an iMessage Error carrying the failed message is final, not retried', async () => {
    fake = await startFakeServer(blueBubbles({ refuse: true }).handler);
    const channel = await createChannel(c, fake.url);
    const failure = await channel.send(message('hello', c.to)).catch((e: ChannelError) => e);
    expect((failure as ChannelError).retryable).toBe(false);
    expect((failure as ChannelError).message).toContain('Failed to send message');
  });

  it('an iMessage Error without a message (the send never reached Messages) is retried', async () => {
    fake = await startFakeServer(() => ({ status: 500, body: { status: 500, message: 'Message Send Error', error: { type: 'iMessage Error', message: 'AppleScript execution error' } } }));
    const channel = await createChannel(c, fake.url);
    const failure = await channel.send(message('hello', c.to)).catch((e: ChannelError) => e);
    expect((failure as ChannelError).retryable).toBe(true);
  });
});
