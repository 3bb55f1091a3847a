import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/log.js';
import { ChannelError, type ChannelAdapter, type ChannelMessage, type PluginDefinition } from '../../src/plugin-sdk/sdk.js';
import { startFakeServer, type FakeResponse, type FakeServer, type RecordedRequest } from '../helpers/fake-server.js';

/** What the shared contract needs to know about one channel plugin and its platform. */
export interface ChannelCase {
  plugin: PluginDefinition;
  /** the plugin's raw config, pointed at the fake platform */
  config(fakeUrl: string): Record<string, unknown>;
  /** config values that must never show up in an error message */
  secrets: string[];
  to: string;
  /** true for the platform's "send a message" request (vs. e.g. a token request) */
  isSend(request: RecordedRequest): boolean;
  /** answers to other requests (a token endpoint) */
  other?(request: RecordedRequest): FakeResponse;
  /** the platform's success answer */
  ok: FakeResponse;
  /** checks URL, auth and body of one send request carrying `text` */
  expectSend(request: RecordedRequest, text: string, to: string): void;
  /** the platform's limit on one message; undefined when it does not split */
  maxChars?: number;
  /** a final (4xx) failure as the platform answers it, and the error text it must surface */
  rejected: { response: FakeResponse; text: string };
  /** a rate limit as the platform answers it, and the wait herald must honour (undefined: none given) */
  rateLimited: { response: FakeResponse; retryAfterMs: number | undefined };
  /**
   * answers the platform documents (cited at the case), each with the outcome herald must report:
   * permanent ones end a delivery at once, transient ones are retried; `reason` is the platform's word
   */
  documented: { response: Extract<FakeResponse, object>; kind: 'permanent' | 'transient'; reason: string }[];
}

const quietLogger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

export async function createChannel(c: ChannelCase, url: string): Promise<ChannelAdapter> {
  const instance = await c.plugin.create({
    config: c.plugin.config.parse(c.config(url)),
    logger: quietLogger,
    host: { config: {} as never, state: { get: async () => undefined, set: async () => {}, update: async (_k, fn) => fn(undefined), delete: async () => {}, deleteOlderThan: async () => 0 } },
  });
  if (!instance.channel) throw new Error(`${c.plugin.id} made no channel`);
  return instance.channel;
}

export function message(text: string, to: string, extra: Partial<ChannelMessage> = {}): ChannelMessage {
  return {
    to,
    text,
    deliveryId: 'b1946ac9-2f0c-4f63-9d1f-1d0f3c7a5e11',
    runId: 'run-1',
    sessionKey: 'hook:test',
    agentId: 'main',
    createdAt: '2025-01-01T00:00:00.000Z',
    signal: new AbortController().signal,
    requestTimeoutMs: 5000,
    ...extra,
  };
}

async function sendError(channel: ChannelAdapter, msg: ChannelMessage): Promise<ChannelError> {
  try {
    await channel.send(msg);
  } catch (error) {
    expect(error).toBeInstanceOf(ChannelError);
    return error as ChannelError;
  }
  throw new Error('send did not fail');
}

/** A long text of paragraphs, so the split has boundaries to cut at. */
function longText(limit: number): string {
  const paragraph = 'word '.repeat(Math.ceil(limit / 10)).trim();
  return Array.from({ length: 5 }, (_, i) => `${i + 1}. ${paragraph}`).join('\n\n');
}

/** The contract every channel plugin keeps against (a fake of) its platform. */
export function channelContract(c: ChannelCase): void {
  describe(`channel ${c.plugin.id}`, () => {
    let fake: FakeServer;
    let channel: ChannelAdapter;
    let answer: (request: RecordedRequest) => FakeResponse;

    beforeAll(async () => {
      fake = await startFakeServer((request) => (c.isSend(request) ? answer(request) : (c.other?.(request) ?? { status: 404, body: {} })));
    });
    afterAll(async () => fake.close());
    beforeEach(async () => {
      fake.requests.length = 0;
      answer = () => c.ok;
      channel = await createChannel(c, fake.url);
    });
    const sends = () => fake.requests.filter((r) => c.isSend(r));

    it('is a channel plugin with a described config schema', () => {
      expect(c.plugin.roles).toContain('channel');
      expect(c.plugin.docs).toBeTruthy();
      const schema = c.plugin.config.toJSONSchema() as { properties: Record<string, { description?: string }> };
      for (const [key, field] of Object.entries(schema.properties)) expect(field.description, key).toBeTruthy();
    });

    it('sends one request with the right URL, auth and body', async () => {
      await channel.send(message('Hello from herald', c.to));
      expect(sends()).toHaveLength(1);
      c.expectSend(sends()[0]!, 'Hello from herald', c.to);
    });

    if (c.maxChars !== undefined) {
      const limit = c.maxChars;
      it(`splits a message over ${limit} characters on paragraph boundaries, in order`, async () => {
        const text = longText(limit);
        const parted: number[] = [];
        await channel.send(message(text, c.to, { onPartSent: async (i) => void parted.push(i) }));
        const texts = sends().map((r) => {
          c.expectSend(r, textOf(r, c), c.to);
          return textOf(r, c);
        });
        expect(texts.length).toBeGreaterThan(1);
        for (const t of texts) expect(t.length).toBeLessThanOrEqual(limit);
        expect(texts.join('\n\n')).toBe(text);
        expect(texts.every((t) => /^\d\. /.test(t))).toBe(true);
        expect(parted).toEqual(texts.map((_, i) => i));
      });

      it('resumes after the parts an earlier attempt delivered', async () => {
        const text = longText(limit);
        await channel.send(message(text, c.to));
        const all = sends().map((r) => textOf(r, c));
        fake.requests.length = 0;
        await channel.send(message(text, c.to, { partsSent: 1 }));
        expect(sends().map((r) => textOf(r, c))).toEqual(all.slice(1));
      });
    }

    it('fails at once on a 4xx with the platform\'s error text', async () => {
      answer = () => c.rejected.response;
      const error = await sendError(channel, message('hi', c.to));
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(c.rejected.text);
      for (const secret of c.secrets) expect(error.message).not.toContain(secret);
    });

    it('keeps secrets out of an error page that echoes the request (a wrong base URL)', async () => {
      answer = (r) => ({ status: 404, body: `Cannot POST ${r.url} (authorization: ${r.headers.authorization ?? 'none'})` });
      const error = await sendError(channel, message('hi', c.to));
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('Cannot POST');
      for (const secret of c.secrets) {
        expect(error.message).not.toContain(secret);
        expect(error.message).not.toContain(encodeURIComponent(secret));
      }
    });

    it('marks a 5xx retryable', async () => {
      answer = () => ({ status: 503, body: { error: 'down for maintenance' } });
      const error = await sendError(channel, message('hi', c.to));
      expect(error.retryable).toBe(true);
      expect(error.status).toBe(503);
    });

    it('marks a rate limit retryable and honours the platform\'s wait', async () => {
      answer = () => c.rateLimited.response;
      const error = await sendError(channel, message('hi', c.to));
      expect(error.retryable).toBe(true);
      expect(error.retryAfterMs).toBe(c.rateLimited.retryAfterMs);
    });

    for (const d of c.documented) {
      it(`classifies ${d.response.status ?? 200} "${d.reason}" as ${d.kind}, with the platform's reason`, async () => {
        answer = () => d.response;
        const { outcome } = await sendError(channel, message('hi', c.to));
        expect(outcome.kind).toBe(d.kind);
        expect(outcome.reason).toContain(d.reason);
      });
    }

    it('marks a network error retryable, without the URL or a secret in the message', async () => {
      answer = () => 'destroy';
      const error = await sendError(channel, message('hi', c.to));
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain(fake.url);
      for (const secret of c.secrets) expect(error.message).not.toContain(secret);
    });
  });
}

/** the text a send request carried, whatever the platform calls the field */
function textOf(request: RecordedRequest, c: ChannelCase): string {
  const j = request.json ?? {};
  const value = j.text?.body ?? j.text ?? j.content ?? j.message;
  if (typeof value !== 'string') throw new Error(`${c.plugin.id}: no text in ${request.body}`);
  return value;
}
