import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startToolCallingModel, type ModelScript, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startMcpHttpServer, type McpHttpServer } from './mcp-http-server.js';

/**
 * Results as the server gives them (issue 81, item 3): a hook run's tool answers text, an image,
 * audio, a resource link, an embedded resource and structured content (a real McpServer over
 * Streamable HTTP); what reaches the model (a fake OpenAI-compatible server that records every
 * request) depends on what the model reads (models.input), and the call's record keeps a summary.
 */
let model: ToolCallingModel | undefined;
let remote: McpHttpServer | undefined;
afterEach(async () => {
  await model?.close();
  await remote?.close();
  model = remote = undefined;
});

// a 1x1 PNG, the header of an empty WAV file, and an "image" past both the media limit and the record's thumbnail size
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WAV = Buffer.from('524946462400000057415645666d7420100000000100010044ac000088580100020010006461746100000000', 'hex').toString('base64');
const BIG = Buffer.alloc(60_000, 7).toString('base64');

/** calls the tool once, then answers with what it got back (however the attachments came) */
const callOnce: ModelScript = (body) => {
  const messages: any[] = body.messages;
  if (!messages.some((m) => m.role === 'tool')) return { calls: [{ name: 'media__report', arguments: {} }] };
  return { text: 'seen' };
};

function startServer(): Promise<McpHttpServer> {
  return startMcpHttpServer((mcp) => {
    mcp.registerTool('report', { description: 'a report with everything', outputSchema: { pages: z.number() }, annotations: { readOnlyHint: true } }, async () => ({
      content: [
        { type: 'text', text: 'The report.' },
        { type: 'image', mimeType: 'image/png', data: PNG },
        { type: 'audio', mimeType: 'audio/wav', data: WAV },
        { type: 'image', mimeType: 'image/png', data: BIG },
        { type: 'resource_link', uri: 'https://example.com/report.pdf', name: 'report.pdf', mimeType: 'application/pdf' },
        { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes inside' } },
      ],
      structuredContent: { pages: 3 },
    }));
  });
}

async function runOnce(input?: string[]): Promise<{ h: TestApp; runId: string }> {
  remote = await startServer();
  model = await startToolCallingModel(callOnce);
  const h = await testApp({
    models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } }, ...(input && { input: { 'fake/tool-model': input } }) },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['media'] } }] },
    // room for the small image and the audio, not for the big one
    tools: { mcpServers: { media: { url: remote.url } }, maxMediaBytes: 1000 },
  });
  const res = await h.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Get the report', deliver: false }) });
  expect(res.status).toBe(202);
  const runId = ((await res.json()) as { runId: string }).runId;
  await eventually(async () => {
    const run = (await (await h.request(`/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { status: string };
    return ['succeeded', 'failed'].includes(run.status) ? run : undefined;
  }, 20_000);
  return { h, runId };
}

const toolText = () => model!.requests[1].messages.find((m: any) => m.role === 'tool').content as string;

describe('tool results with images, audio and resources', () => {
  it('a model that reads images and audio gets them after the tool message, as image_url and input_audio parts; the big image is not sent', async () => {
    await runOnce(['text', 'image', 'audio']);
    const messages: any[] = model!.requests[1].messages;
    const toolAt = messages.findIndex((m) => m.role === 'tool');
    // the tool message stays text (OpenAI's tool message carries text only), every item described in it
    expect(toolText()).toBe(
      [
        'The report.',
        '[image image/png, 70 bytes]',
        '[audio audio/wav, 44 bytes]',
        '[image image/png, 60000 bytes: not passed on, past tools.maxMediaBytes (1000)]',
        '[resource link report.pdf: https://example.com/report.pdf (application/pdf)]',
        '[resource file:///notes.txt]\nnotes inside',
        '{"pages":3}',
      ].join('\n'),
    );
    // then one user message with the attachments, naming the call they belong to
    expect(messages[toolAt + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: `The attachments of the result of tool call ${messages[toolAt].tool_call_id}:` },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } },
      ],
    });
    expect(messages).toHaveLength(toolAt + 2);
  });

  it('a model that reads text only (the default) gets the description and no attachment', async () => {
    await runOnce();
    const messages: any[] = model!.requests[1].messages;
    expect(messages.at(-1).role).toBe('tool');
    expect(toolText()).toContain('[image image/png, 70 bytes]');
    expect(JSON.stringify(model!.requests[1])).not.toContain(PNG);
  });

  it("the call's record keeps a summary of each item, the small image's data only", async () => {
    const { h, runId } = await runOnce(['text', 'image']);
    // an image-only model: the audio stays a description
    expect(model!.requests[1].messages.at(-1).content.map((p: any) => p.type)).toEqual(['text', 'image_url']);
    const [call] = await h.gateway.store.toolCalls.ofOwner('run', runId);
    expect(call!.content).toEqual([
      { kind: 'image', mimeType: 'image/png', bytes: 70, data: PNG },
      { kind: 'audio', mimeType: 'audio/wav', bytes: 44 },
      { kind: 'image', mimeType: 'image/png', bytes: 60_000 },
      { kind: 'resource_link', uri: 'https://example.com/report.pdf', name: 'report.pdf', mimeType: 'application/pdf' },
      { kind: 'resource', uri: 'file:///notes.txt', mimeType: 'text/plain', size: 12, text: true },
      { kind: 'structured', json: '{"pages":3}' },
    ]);
    // the admin API shows the same
    const run = (await (await h.request(`/admin/runs/${runId}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as any;
    expect(run.toolCalls[0].content).toEqual(call!.content);
    // the run's checkpoint keeps no attachment
    expect(JSON.stringify((await h.gateway.store.runs.get(runId))?.turnState ?? null)).not.toContain(PNG);
  });
});
