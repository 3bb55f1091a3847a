import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { API_KEY, GATEWAY_TOKEN } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * Server-side tools in chat completions, through the official `openai` client: herald runs the
 * calls of the agent's granted tools itself and answers with the model's last word; the client
 * sees its own tool calls only.
 */
let model: ToolCallingModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

async function chatWithTools(): Promise<{ h: TestApp; client: OpenAI }> {
  const h = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: model!.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'analyst', tools: { servers: ['herald'], allow: ['herald__search_knowledge', 'herald__add_event'] } }] },
  });
  return { h, client: new OpenAI({ baseURL: `${h.origin}/v1`, apiKey: API_KEY, fetch: h.fetch }) };
}

describe('server-side tools in chat completions', () => {
  it('runs the granted tool, answers with the final text, and records the call under the conversation', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'herald__search_knowledge', arguments: { query: 'refunds' } }]]));
    const { h, client } = await chatWithTools();
    const completion = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'How long do refunds take?' }] });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Done: nothing found' } });
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    // two model turns, both counted under the key
    expect(completion.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 10 });
    const conversation = (completion as unknown as { conversation_id: string }).conversation_id;
    expect(await h.gateway.store.toolCalls.ofOwner('chat', conversation)).toMatchObject([{ tool: 'search_knowledge', status: 'succeeded', keyName: 'test' }]);
  });

  it('with store: false: no conversation is kept, and the call is still recorded and counted', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'herald__search_knowledge', arguments: { query: 'refunds' } }]]));
    const { h, client } = await chatWithTools();
    const completion = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'How long do refunds take?' }], store: false });
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Done: nothing found' } });
    expect(completion).not.toHaveProperty('conversation_id');
    const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
    expect(((await (await h.request('/admin/sessions?prefix=chat:', { headers: admin })).json()) as { data: unknown[] }).data).toEqual([]);
    const metrics = await (await h.request('/metrics', { headers: admin })).text();
    expect(metrics).toMatch(/herald_tool_calls_total\{[^}]*tool="search_knowledge"[^}]*outcome="succeeded"[^}]*\} 1/);
  });

  it('streamed: the answer streams, the server-side calls do not reach the client', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'herald__search_knowledge', arguments: { query: 'refunds' } }]]));
    const { client } = await chatWithTools();
    const stream = await client.chat.completions.create({ model: 'analyst', stream: true, messages: [{ role: 'user', content: 'How long do refunds take?' }] });
    let text = '';
    const finishes: string[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      expect(choice.delta.tool_calls).toBeUndefined();
      text += choice.delta.content ?? '';
      if (choice.finish_reason) finishes.push(choice.finish_reason);
    }
    expect(text).toBe('Done: nothing found');
    expect(finishes).toEqual(['stop']);
  });

  it('a write that would need a person is refused in chat, with the reason told to the model', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'herald__add_event', arguments: { text: 'hello' } }]]));
    const h = await testApp({
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'analyst', tools: { servers: ['herald'], requireApproval: 'always' } }] },
    });
    const client = new OpenAI({ baseURL: `${h.origin}/v1`, apiKey: API_KEY, fetch: h.fetch });
    const completion = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'note hello' }] });
    expect(completion.choices[0]!.message.content).toBe("Done: Error: herald__add_event needs a person's approval, which this turn cannot wait for (only hook runs wait for approvals)");
    expect((await h.gateway.store.events.list('main', 10)).map((e) => e.text)).not.toContain('hello');
  });

  it('beside client tools: herald answers its own call, the client gets its own back', async () => {
    model = await startToolCallingModel(
      callInRounds([
        [
          { name: 'herald__search_knowledge', arguments: { query: 'weather' } },
          { name: 'get_weather', arguments: { city: 'Oslo' } },
        ],
      ]),
    );
    const { client } = await chatWithTools();
    const completion = await client.chat.completions.create({
      model: 'analyst',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls!.map((c) => c.type === 'function' && c.function.name)).toEqual(['get_weather']);
    // the model was offered the client's tool and the agent's, the client's first
    expect(model.requests[0].tools.map((t: any) => t.function.name)).toEqual(['get_weather', 'herald__search_knowledge', 'herald__add_event']);
  });
});
