import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';
import { startFakeUpstream } from './fake-openai-upstream.js';

/** LangChain's ChatOpenAI, unchanged, against herald: bindTools and withStructuredOutput (fake upstream: fake-tool-model.ts). */
let herald: TestApp;
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  herald = await testApp({
    models: { providers: { up: { api: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'upstream-secret-key' } } },
    agents: { list: [{ id: 'analyst', model: 'up/gpt-test' }, { id: 'support' }] },
  });
});
afterAll(async () => {
  await herald?.stop();
  await upstream?.close();
});

const chat = (model: string) => new ChatOpenAI({ model, apiKey: API_KEY, configuration: { baseURL: `${herald.origin}/v1`, fetch: herald.fetch }, maxRetries: 0 });
// (LangChain 0.3's types do not infer a zod 4 schema's input; at run time it validates with it)
const getWeather = tool(async (input) => `12C in ${(input as { city: string }).city}`, {
  name: 'get_weather',
  description: 'The weather in a city',
  schema: z.object({ city: z.string() }),
});

describe("LangChain's ChatOpenAI against herald", () => {
  it('bindTools: the model calls the tool, the tool result continues the turn', async () => {
    upstream.toolModel({ argumentsFor: () => ({ city: 'Oslo' }) });
    const model = chat('analyst').bindTools([getWeather]);
    const question = { role: 'user' as const, content: 'Weather in Oslo?' };
    const calling = await model.invoke([question]);
    expect(calling.tool_calls).toMatchObject([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    expect(upstream.requests.at(-1)!.json.tools[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    const result = await getWeather.invoke(calling.tool_calls![0]!);
    const answer = await model.invoke([question, calling, result]);
    expect(answer.content).toBe('The tools said: 12C in Oslo.');
  });

  it('withStructuredOutput: a zod schema, by function calling and by json_schema', async () => {
    upstream.toolModel({ argumentsFor: () => ({ city: 'Oslo', temperature_c: 12 }), jsonFor: () => ({ city: 'Oslo', temperature_c: 12 }) });
    const Weather = z.object({ city: z.string(), temperature_c: z.number() });
    expect(await chat('analyst').withStructuredOutput(Weather, { name: 'weather', method: 'functionCalling' }).invoke('Weather in Oslo?')).toEqual({ city: 'Oslo', temperature_c: 12 });
    expect(upstream.requests.at(-1)!.json).toMatchObject({ tools: [{ function: { name: 'weather' } }], tool_choice: { type: 'function', function: { name: 'weather' } } });
    // LangChain's default method for this model
    expect(await chat('analyst').withStructuredOutput(Weather, { name: 'weather' }).invoke('Weather in Oslo?')).toEqual({ city: 'Oslo', temperature_c: 12 });
    expect(await chat('analyst').withStructuredOutput(Weather, { name: 'weather', method: 'jsonSchema' }).invoke('Weather in Oslo?')).toEqual({ city: 'Oslo', temperature_c: 12 });
    expect(upstream.requests.at(-1)!.json.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather' } });
  });

  it('an embedded-model agent refuses bindTools with a 400 the caller can read', async () => {
    await expect(chat('support').bindTools([getWeather]).invoke('Weather in Oslo?')).rejects.toThrow(/embedded\/extractive.*models\.providers/);
  });
});
