import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import type { TestApp } from '../app-fixture.js';
import type { startFakeUpstream } from './fake-openai-upstream.js';
import { startToolAgents } from './tool-agents.js';

/**
 * Client tools and structured output in chat completions, with the official client's helpers,
 * against a fake OpenAI-compatible upstream that really calls tools (fake-tool-model.ts).
 */
let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let client: OpenAI;

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
type Citations = { citations: { filename: string }[]; conversation_id: string };

beforeAll(async () => {
  ({ upstream, herald, client } = await startToolAgents('The Oslo office reports the weather to head office every morning.'));
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

describe('client tools in chat completions', () => {
  it('runTools: the model calls two tools in parallel, the client runs them, the answer quotes their results', async () => {
    const ran: unknown[] = [];
    const before = upstream.requests.length;
    const runner = client.chat.completions.runTools({
      model: 'analyst',
      messages: [{ role: 'user', content: 'What is the weather and the time in Oslo?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', function: (args: { city: string }) => (ran.push(args), `12C in ${args.city}`), parse: JSON.parse, parameters: weatherTool.function.parameters } },
        { type: 'function', function: { name: 'get_time', description: 'The time in a city', function: (args: { city: string }) => (ran.push(args), `10:00 in ${args.city}`), parse: JSON.parse, parameters: weatherTool.function.parameters } },
      ],
    });
    expect(await runner.finalContent()).toBe('The tools said: 12C in Oslo; 10:00 in Oslo.');
    expect(ran).toEqual([{ city: 'Oslo' }, { city: 'Oslo' }]);

    const [calling, answering] = runner.allChatCompletions();
    expect(calling!.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { content: null, annotations: [] } });
    expect(calling!.choices[0]!.message.tool_calls!.map((c) => c.type === 'function' && c.function.name)).toEqual(['get_weather', 'get_time']);
    // the knowledge the model was given: the extension on both, OpenAI's annotations on the answer with text
    expect((calling as unknown as Citations).citations[0]!.filename).toBe('oslo.txt');
    expect(answering!.choices[0]!.finish_reason).toBe('stop');
    expect(answering!.choices[0]!.message.annotations![0]).toMatchObject({ type: 'url_citation', url_citation: { title: 'oslo.txt' } });

    const [first, second] = upstream.requests.slice(before).map((r) => r.json);
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['get_weather', 'get_time']);
    expect(first.tools[0].function.parameters).toEqual(weatherTool.function.parameters);
    expect(first.messages[0].content).toContain('Oslo office reports the weather');
    // the continuation reaches the upstream as a valid sequence: the calls, then one result per call
    const ids = calling!.choices[0]!.message.tool_calls!.map((c) => c.id);
    expect(second.messages.slice(1)).toEqual([
      { role: 'user', content: 'What is the weather and the time in Oslo?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: ids[0], type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { id: ids[1], type: 'function', function: { name: 'get_time', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', content: '12C in Oslo', tool_call_id: ids[0] },
      { role: 'tool', content: '10:00 in Oslo', tool_call_id: ids[1] },
    ]);
    // knowledge retrieval still adds the system message on the continuation
    expect(second.messages[0].content).toContain('Oslo office reports the weather');
  });

  it('passes tool_choice and parallel_tool_calls through and streams the calls (chat.completions.stream)', async () => {
    const stream = client.chat.completions.stream({
      model: 'analyst',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [weatherTool, { type: 'function', function: { name: 'get_time', parameters: weatherTool.function.parameters } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      stream_options: { include_usage: true },
    });
    const done: string[] = [];
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    stream.on('tool_calls.function.arguments.done', (e) => done.push(`${e.name}(${e.arguments})`));
    stream.on('chunk', (chunk) => chunks.push(chunk));
    const final = await stream.finalChatCompletion();
    expect(done).toEqual(['get_weather({"city":"Oslo"})']);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(upstream.requests.at(-1)!.json).toMatchObject({ stream: true, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false });
    // OpenAI's delta shape: id, type and name on the first piece of a call, arguments in pieces after
    const pieces = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(pieces[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(pieces[0]!.id).toMatch(/^call_/);
    expect(pieces.slice(1).every((p) => p.id === undefined && p.function?.name === undefined)).toBe(true);
    expect((chunks.find((c) => c.choices[0]?.finish_reason) as unknown as Citations).citations[0]!.filename).toBe('oslo.txt');

    // the stored conversation continues with the tool result alone, and survives a restart
    const conversation_id = (chunks[0] as unknown as Citations).conversation_id;
    const call = final.choices[0]!.message.tool_calls![0]!;
    herald = await herald.restart();
    client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'analyst',
      messages: [{ role: 'tool', tool_call_id: call.id, content: '12C' }],
      tools: [weatherTool],
      conversation_id,
    } as never);
    expect((answer as OpenAI.ChatCompletion).choices[0]!.message.content).toBe('The tools said: 12C.');
    expect(upstream.requests.at(-1)!.json.messages.slice(1)).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: '', tool_calls: [{ id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', content: '12C', tool_call_id: call.id },
    ]);
    const res = await herald.request(`/admin/sessions/chat:${conversation_id}/messages`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    const { data } = (await res.json()) as { data: { role: string }[] };
    expect(data.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // the client's tool call, where the model asked for it, and its result named by its tool
    expect(data[1]).toMatchObject({ role: 'assistant', content: '', toolCalls: [{ id: call.id, name: 'get_weather', arguments: { city: 'Oslo' } }] });
    expect(data[2]).toMatchObject({ role: 'tool', content: '12C', toolCallId: call.id, tool: 'get_weather' });
  });

  it('runTools streamed', async () => {
    const runner = client.chat.completions.runTools({
      model: 'analyst',
      stream: true,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather', function: () => 'rain', parse: JSON.parse, parameters: weatherTool.function.parameters } }],
    });
    expect(await runner.finalContent()).toBe('The tools said: rain.');
  });

  it('parse: zodFunction arguments and zodResponseFormat answers, parsed by the client; json_object passed through', async () => {
    const withTool = await client.chat.completions.parse({
      model: 'analyst',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [zodFunction({ name: 'get_weather', parameters: z.object({ city: z.string() }) })],
    });
    const call = withTool.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.parsed_arguments).toEqual({ city: 'Oslo' });

    upstream.toolModel({ jsonFor: () => ({ city: 'Oslo', temperature_c: 12 }) });
    const Weather = z.object({ city: z.string(), temperature_c: z.number() });
    const structured = await client.chat.completions.parse({
      model: 'analyst',
      messages: [{ role: 'user', content: 'Weather in Oslo as JSON' }],
      response_format: zodResponseFormat(Weather, 'weather'),
    });
    expect(structured.choices[0]!.message.parsed).toEqual({ city: 'Oslo', temperature_c: 12 });
    expect(upstream.requests.at(-1)!.json.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather', strict: true } });
    expect((structured as unknown as Citations).citations[0]!.filename).toBe('oslo.txt');

    const object = await client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' } });
    expect(JSON.parse(object.choices[0]!.message.content!)).toEqual({ answer: 'No tools needed.' });
    expect(upstream.requests.at(-1)!.json.response_format).toEqual({ type: 'json_object' });
    upstream.toolModel({ argumentsFor: () => ({ city: 'Oslo' }) });
  });

  it('refuses a tool result that answers no call, by the field', async () => {
    const err = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);
    const orphan = await err(
      client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_nope', content: 'x' }], tools: [weatherTool] }),
    );
    expect(orphan).toMatchObject({ status: 400, param: 'messages[1].tool_call_id' });
    const custom = await err(client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'custom', custom: { name: 'x' } }] }));
    expect(custom).toMatchObject({ status: 400, param: 'tools[0].type', code: 'unsupported_parameter' });
    const noId = await err(client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', content: 'x' } as never] }));
    expect(noId).toMatchObject({ status: 400, param: 'messages[1].tool_call_id' });
    const noContent = await err(client.chat.completions.create({ model: 'analyst', messages: [{ role: 'user' } as never] }));
    expect(noContent).toMatchObject({ status: 400, param: 'messages[0].content' });
  });
});

describe('an agent on the embedded model', () => {
  it('answers 400 naming the agent, its model and what to configure, for tools and structured output', async () => {
    const before = upstream.requests.length;
    const tools = await client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }], tools: [weatherTool] }).catch((e: unknown) => e);
    expect(tools).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tools).toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'tools', type: 'invalid_request_error' });
    const message = (tools as Error).message;
    expect(message).toContain('"support"');
    expect(message).toContain('"embedded/extractive"');
    expect(message).toContain('models.providers');
    const format = await client.chat.completions
      .parse({ model: 'support', messages: [{ role: 'user', content: 'hi' }], response_format: zodResponseFormat(z.object({ a: z.string() }), 'a') })
      .catch((e: unknown) => e);
    expect(format).toMatchObject({ status: 400, param: 'response_format' });
    const stream = await client.chat.completions.create({ model: 'support', stream: true, messages: [{ role: 'user', content: 'hi' }], tools: [weatherTool] }).catch((e: unknown) => e);
    expect(stream).toMatchObject({ status: 400, param: 'tools' });
    expect(upstream.requests.length).toBe(before);
  });
});
