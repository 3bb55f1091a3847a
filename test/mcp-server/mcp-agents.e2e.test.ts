import { afterEach, describe, expect, it } from 'vitest';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { API_KEY } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { connectClient } from './mcp-client.js';

/**
 * Digital employees and their knowledge over /mcp, through the SDK's Client: ask_<agent> runs a
 * turn as a chat completion would (a fake OpenAI-compatible model), answers with the reply and
 * its citations; documents are resources, search a tool; another key sees none of it.
 */
const OTHER_KEY = 'sk-other-0123456789abcdef0123';
let model: ToolCallingModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function herald(): Promise<TestApp> {
  const h = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: model!.url, apiKey: 'sk-fake' } } },
    platform: {
      mcp: { enabled: true },
      apiKeys: [
        { name: 'test', key: API_KEY },
        { name: 'other', key: OTHER_KEY, agents: ['main'] },
      ],
    },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'main' }, { id: 'support', name: 'Support' }] },
  });
  const form = new FormData();
  form.set('file', new Blob(['Refunds take five business days from the request.'], { type: 'text/plain' }), 'refunds.txt');
  form.set('agent_id', 'support');
  expect((await h.request('/v1/knowledge/upload', { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form })).status).toBeLessThan(300);
  return h;
}

describe('agents and knowledge over /mcp', () => {
  it('ask_<agent> answers with the reply, its conversation and citations (structuredContent), and continues the conversation', async () => {
    model = await startToolCallingModel((body) => ({ text: `Five business days [1]. (${body.messages.filter((m: { role: string }) => m.role === 'user').length} user turns)` }));
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    const progress: string[] = [];
    const first = await client.callTool({ name: 'ask_support', arguments: { message: 'How long do refunds take?' } }, undefined, { onprogress: (p) => void progress.push(p.message ?? '') });
    expect(first.isError).toBeFalsy();
    const answer = first.structuredContent as { reply: string; conversation: string; citations: { index: number; filename: string; uri: string }[] };
    expect(answer.reply).toBe('Five business days [1]. (1 user turns)');
    expect(answer.citations).toMatchObject([{ index: 1, filename: 'refunds.txt', uri: expect.stringMatching(/^herald:\/\/agents\/support\/documents\//) }]);
    expect((first.content as { text: string }[])[0]!.text).toContain('[1] refunds.txt (herald://agents/support/documents/');
    expect(progress[0]).toBe('support is working on it');
    // the model was given the passage, as in a chat completion
    expect(JSON.stringify(model.requests[0].messages)).toContain('Refunds take five business days');
    const second = await client.callTool({ name: 'ask_support', arguments: { message: 'And exchanges?', conversation: answer.conversation } });
    expect((second.structuredContent as { reply: string }).reply).toBe('Five business days [1]. (2 user turns)');
    // the turn's tokens count against the key, as a chat completion's do
    const usage = await h.request('/admin/usage?by=key', { headers: { authorization: 'Bearer gateway-token-0123456789abcdef' } });
    expect(JSON.stringify(await usage.json())).toContain('"test"');
  });

  it('a missing message is an isError result naming the field; a conversation of another key is unknown', async () => {
    model = await startToolCallingModel(() => ({ text: 'hello' }));
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    const empty = await client.callTool({ name: 'ask_main', arguments: { message: '' } });
    expect(empty).toMatchObject({ isError: true, content: [{ text: 'message must be a non-empty string' }] });
    const mine = (await client.callTool({ name: 'ask_main', arguments: { message: 'hi' } })).structuredContent as { conversation: string };
    const other = await connectClient(h, { key: OTHER_KEY });
    const stolen = await other.callTool({ name: 'ask_main', arguments: { message: 'hi', conversation: mine.conversation } });
    expect(stolen.isError).toBe(true);
    expect((stolen.content as { text: string }[])[0]!.text).toMatch(/conversation/i);
  });

  it('a cancelled ask cancels the turn: the call ends while the model still holds its answer', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    model = await startToolCallingModel(async () => {
      await held;
      return { text: 'too late' };
    });
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    const controller = new AbortController();
    const asking = client.callTool({ name: 'ask_main', arguments: { message: 'slow question' } }, undefined, { signal: controller.signal });
    while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    controller.abort('the user gave up');
    await expect(asking).rejects.toThrow();
    // the call ends while the model still holds its answer: the turn was cancelled, not waited for
    const [session] = h.gateway.mcpSessions.all();
    while (session!.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    release();
    expect((await client.callTool({ name: 'ask_main', arguments: { message: 'again' } })).structuredContent).toMatchObject({ reply: 'too late' });
  });

  it('documents are resources of the agents the key may ask, read by URI; search_documents finds passages; another key sees neither', async () => {
    model = await startToolCallingModel(() => ({ text: 'ok' }));
    const h = await herald();
    const client = await connectClient(h, { key: API_KEY });
    const { resources } = await client.listResources();
    expect(resources).toMatchObject([{ name: 'refunds.txt', uri: expect.stringMatching(/^herald:\/\/agents\/support\/documents\//), mimeType: 'text/plain' }]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toMatchObject([{ uriTemplate: 'herald://agents/{agent}/documents/{id}' }]);
    const read = await client.readResource({ uri: resources[0]!.uri });
    expect(read.contents).toMatchObject([{ uri: resources[0]!.uri, text: 'Refunds take five business days from the request.' }]);
    const found = await client.callTool({ name: 'search_documents', arguments: { query: 'refunds' } });
    expect(found.structuredContent).toMatchObject({ results: [{ agent: 'support', filename: 'refunds.txt', content: 'Refunds take five business days from the request.' }] });
    const other = await connectClient(h, { key: OTHER_KEY });
    expect((await other.listResources()).resources).toEqual([]);
    await expect(other.readResource({ uri: resources[0]!.uri })).rejects.toThrow(/No resource/);
    expect((await other.callTool({ name: 'search_documents', arguments: { query: 'refunds' } })).structuredContent).toEqual({ results: [] });
    const named = await other.callTool({ name: 'search_documents', arguments: { query: 'refunds', agent: 'support' } });
    expect(named).toMatchObject({ isError: true, content: [{ text: 'The agent "support" does not exist.' }] });
  });
});
