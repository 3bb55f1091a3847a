import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { API_KEY, eventually } from '../helpers/start-herald.js';
import { testApp } from '../http/app-fixture.js';

/**
 * herald's own tools, granted like any server's: a message through the durable outbox reaches
 * its channel, an event reaches the main session, a search reads the agent's knowledge.
 */
let model: ToolCallingModel | undefined;
let channel: FakeServer | undefined;
afterEach(async () => {
  await model?.close();
  await channel?.close();
});

const ask = async (client: OpenAI, content: string) => (await client.chat.completions.create({ model: 'ops', messages: [{ role: 'user', content }] })).choices[0]!.message.content;

describe("herald's built-in tools", () => {
  it('send_message queues a message for its channel target, delivered once; a target not configured is a tool error', async () => {
    channel = await startFakeServer(() => ({ body: { ok: true } }));
    model = await startToolCallingModel(
      callInRounds([
        [
          { name: 'herald__send_message', arguments: { channel: 'webhook', text: 'The deploy of api finished.' } },
          { name: 'herald__send_message', arguments: { channel: 'telegram', to: '42', text: 'nowhere' } },
        ],
      ]),
    );
    const h = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['herald'] } }] },
      channels: { webhook: { url: `${channel.url}/inbox` } },
    });
    const client = new OpenAI({ baseURL: `${h.origin}/v1`, apiKey: API_KEY, fetch: h.fetch });
    expect(await ask(client, 'Tell the team the deploy finished')).toBe('Done: queued for delivery | Error: channel telegram is not configured (no channels.telegram in the config)');
    const delivered = await eventually(() => channel!.requests.find((r) => r.path === '/inbox'));
    expect(delivered.json).toMatchObject({ text: 'The deploy of api finished.', agent: 'ops' });
    const deliveries = await h.gateway.store.deliveries.list({ limit: 10 });
    expect(deliveries).toMatchObject([{ kind: 'tool', channel: 'webhook', agentId: 'ops' }]);
    // its id is the call's record id: a call resumed after a crash queues no second message
    expect(deliveries[0]!.id).toMatch(/^tool-tc_/);
  });

  it('add_event puts an event on the main session; search_knowledge reads the agent\'s knowledge', async () => {
    model = await startToolCallingModel(
      callInRounds([
        [
          { name: 'herald__add_event', arguments: { text: 'invoice 7 was paid' } },
          { name: 'herald__search_knowledge', arguments: { query: 'refunds' } },
        ],
      ]),
    );
    const h = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['herald'] } }] },
    });
    const form = new FormData();
    form.set('file', new Blob(['Refunds take five business days from the request.'], { type: 'text/plain' }), 'refunds.txt');
    form.set('agent_id', 'ops');
    expect((await h.request('/v1/knowledge/upload', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form })).status).toBeLessThan(300);
    const client = new OpenAI({ baseURL: `${h.origin}/v1`, apiKey: API_KEY, fetch: h.fetch });
    const answer = await ask(client, 'Note the payment, and how long do refunds take?');
    expect(answer).toContain('Done: added to the main session | [1] (refunds.txt)\nRefunds take five business days');
    expect((await h.gateway.store.events.list('main', 10)).map((e) => e.text)).toContain('invoice 7 was paid');
  });
});
