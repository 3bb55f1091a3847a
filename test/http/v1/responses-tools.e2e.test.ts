import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { zodResponsesFunction, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import type { TestApp } from '../app-fixture.js';
import type { startFakeUpstream } from './fake-openai-upstream.js';
import { startToolAgents } from './tool-agents.js';

/**
 * Function tools and structured output in the Responses API, with the official client, against a
 * fake OpenAI-compatible upstream that really calls tools (fake-tool-model.ts): herald speaks the
 * Responses shapes to the client and chat completions to the upstream.
 */
let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let client: OpenAI;

const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const weather: OpenAI.Responses.FunctionTool = { type: 'function', name: 'get_weather', description: 'The weather in a city', parameters, strict: true };

beforeAll(async () => {
  ({ upstream, herald, client } = await startToolAgents('The Oslo office reports the weather every morning.'));
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

describe('function tools in the Responses API', () => {
  it('answers function_call items and continues with function_call_output by previous_response_id', async () => {
    const first = await client.responses.create({ model: 'analyst', input: 'Weather in Oslo?', tools: [weather], tool_choice: 'auto' });
    expect(first.status).toBe('completed');
    expect(first.output).toHaveLength(1);
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Oslo"}', status: 'completed' });
    expect(call.id).toMatch(/^fc_/);
    expect(call.call_id).toMatch(/^call_/);
    expect(first.tools).toEqual([weather]);
    // the upstream got the tools in the chat-completions shape
    const sent = upstream.requests.at(-1)!.json;
    expect(sent.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters, strict: true } }]);
    expect(sent.tool_choice).toBe('auto');

    const second = await client.responses.create({
      model: 'analyst',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '12C and sunny' }],
      tools: [weather],
    });
    expect(second.output_text).toBe('The tools said: 12C and sunny.');
    expect(upstream.requests.at(-1)!.json.messages.slice(1)).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: '', tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', content: '12C and sunny', tool_call_id: call.call_id },
    ]);
    // retrieval still adds the knowledge; the answer carries it as file_citation annotations
    expect(upstream.requests.at(-1)!.json.messages[0].content).toContain('Oslo office');
    const text = (second.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.annotations[0]).toMatchObject({ type: 'file_citation', filename: 'oslo.txt' });

    const stored = await client.responses.retrieve(first.id);
    expect(stored.output[0]).toEqual(first.output[0]);
    expect(stored.tools).toEqual([weather]);
  });

  it('continues inline: function_call and function_call_output items without previous_response_id', async () => {
    const first = await client.responses.create({ model: 'analyst', input: 'Weather in Oslo?', tools: [weather], store: false });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    const answer = await client.responses.create({
      model: 'analyst',
      store: false,
      tools: [weather],
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: 'Let me look.' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'fog' },
      ],
    });
    expect(answer.output_text).toBe('The tools said: fog.');
    // the calls join the assistant turn they follow
    expect(upstream.requests.at(-1)!.json.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Let me look.', tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', content: 'fog', tool_call_id: call.call_id },
    ]);
    await expect(
      client.responses.create({ model: 'analyst', tools: [weather], input: [{ role: 'user', content: 'hi' }, { type: 'function_call_output', call_id: 'call_nope', output: 'x' }] }),
    ).rejects.toMatchObject({ status: 400, param: 'input[1].call_id' });
  });

  it('streams function_call items with their typed events', async () => {
    const stream = client.responses.stream({ model: 'analyst', input: 'Weather in Oslo?', tools: [weather] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const added = events[2] as OpenAI.Responses.ResponseOutputItemAddedEvent;
    expect(added.item).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '', status: 'in_progress' });
    const argsDone = events[5] as OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent;
    expect(argsDone).toMatchObject({ item_id: added.item.id, output_index: 0, name: 'get_weather', arguments: '{"city":"Oslo"}' });
    expect(final.output[0]).toMatchObject({ type: 'function_call', id: added.item.id, arguments: '{"city":"Oslo"}', status: 'completed' });
  });

  it('parse: zodTextFormat structured output and zodResponsesFunction arguments, parsed by the client', async () => {
    upstream.toolModel({ jsonFor: () => ({ city: 'Oslo', temperature_c: 12 }) });
    const Weather = z.object({ city: z.string(), temperature_c: z.number() });
    const structured = await client.responses.parse({ model: 'analyst', input: 'Weather in Oslo as JSON', text: { format: zodTextFormat(Weather, 'weather') } });
    expect(structured.output_parsed).toEqual({ city: 'Oslo', temperature_c: 12 });
    expect(structured.text!.format).toMatchObject({ type: 'json_schema', name: 'weather' });
    // the knowledge the model was given stays a file_citation (at the end of the JSON, which has no [n] marker)
    const part = (structured.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(part.annotations[0]).toMatchObject({ type: 'file_citation', filename: 'oslo.txt', index: part.text.length });
    expect(upstream.requests.at(-1)!.json.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather', strict: true, schema: { type: 'object' } } });
    const object = await client.responses.create({ model: 'analyst', input: 'JSON please', text: { format: { type: 'json_object' } } });
    expect(JSON.parse(object.output_text)).toEqual({ answer: 'No tools needed.' });
    expect(upstream.requests.at(-1)!.json.response_format).toEqual({ type: 'json_object' });

    upstream.toolModel({ argumentsFor: () => ({ city: 'Oslo' }) });
    const withTool = await client.responses.parse({
      model: 'analyst',
      input: 'Weather in Oslo?',
      tools: [zodResponsesFunction({ name: 'get_weather', parameters: z.object({ city: z.string() }) })],
    });
    expect((withTool.output[0] as { parsed_arguments: unknown }).parsed_arguments).toEqual({ city: 'Oslo' });
  });

  it("the AI SDK's default provider runs a tool over the Responses API (generateText with tools)", async () => {
    upstream.toolModel({ argumentsFor: () => ({ city: 'Oslo' }) });
    const result = await generateText({
      model: createOpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: API_KEY })('analyst'),
      prompt: 'Weather in Oslo?',
      tools: { get_weather: tool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `12C in ${city}` }) },
      stopWhen: stepCountIs(3),
    });
    expect(result.steps[0]!.toolCalls).toMatchObject([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    expect(result.text).toBe('The tools said: 12C in Oslo.');
    expect(result.sources.map((s) => (s as { filename?: string; title?: string }).filename ?? (s as { title?: string }).title)).toContain('oslo.txt');
  });

    it('the embedded model answers 400 naming the agent, its model and what to configure', async () => {
    const error = await client.responses.create({ model: 'support', input: 'hi', tools: [weather] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'tools', code: 'unsupported_parameter' });
    expect((error as Error).message).toMatch(/"support".*"embedded\/extractive".*models\.providers/);
    await expect(client.responses.parse({ model: 'support', input: 'hi', text: { format: zodTextFormat(z.object({ a: z.string() }), 'a') } })).rejects.toMatchObject({
      status: 400,
      param: 'text.format',
    });
    await expect(client.responses.create({ model: 'support', input: 'hi', stream: true, tools: [weather] })).rejects.toMatchObject({ status: 400, param: 'tools' });
  });
});
