import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../../helpers/fake-tool-calling-model.js';
import { API_KEY, eventually } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../app-fixture.js';

/**
 * A Responses turn that narrows its tools per request (`{type: "mcp", server_label}` naming a
 * configured server, https://platform.openai.com/docs/guides/tools-remote-mcp#approvals): the
 * client approves a call (`mcp_approval_response`) after herald restarted and the server no longer
 * starts. The config still grants the server, so the call failed, it was not refused: its
 * `mcp_call` item and its record name the server and the connection's error, and the model gets
 * that as the tool's error result. The server is npm's reference MCP server
 * (@modelcontextprotocol/server-everything), started as `node server.mjs` from the config's
 * folder, so removing the script takes it down. Driven by the official `openai` client.
 */
const EVERYTHING_MAIN = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let model: ToolCallingModel | undefined;
let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  await model?.close();
  herald = undefined;
  model = undefined;
});

const serverState = (h: TestApp) => h.gateway.mcp.health().find((s) => s.server === 'everything');
const clientOf = (h: TestApp) => new OpenAI({ baseURL: `${h.origin}/v1`, fetch: h.fetch, apiKey: API_KEY, maxRetries: 0 });
const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'everything', allowed_tools: ['echo'], require_approval: 'always' }];

type Item = OpenAI.Responses.ResponseOutputItem;
const ofType = <T extends Item['type']>(items: Item[], type: T) => items.filter((i): i is Extract<Item, { type: T }> => i.type === type);

/**
 * A response of an agent granted `servers` waiting for the client's approval of `everything__echo`;
 * herald restarted with the server gone, `change` applied to its config; the approval's response,
 * sent with the tools `again`
 */
async function approvedAfterRestart({ servers = ['everything', 'herald'], change = () => {}, again = tools }: { servers?: string[]; change?: (config: Record<string, any>) => void; again?: OpenAI.Responses.Tool[] } = {}) {
  model = await startToolCallingModel(callInRounds([[{ name: 'everything__echo', arguments: { message: 'hello' } }]]));
  herald = await testApp(
    {
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { list: [{ id: 'clerk', model: 'fake/tool-model', tools: { servers } }] },
      tools: { mcpServers: { everything: { command: process.execPath, args: ['server.mjs'] } } },
    },
    { files: { 'server.mjs': `import ${JSON.stringify(EVERYTHING_MAIN)};\n` } },
  );
  await eventually(() => serverState(herald!)?.state === 'ready', 60_000);
  const first = await clientOf(herald).responses.create({ model: 'clerk', input: 'Echo hello', tools });
  expect(first.output.map((i) => i.type)).toEqual(['mcp_list_tools', 'mcp_approval_request']);
  const [request] = ofType(first.output, 'mcp_approval_request');

  fs.rmSync(path.join(herald.dir, 'server.mjs'));
  const config = JSON.parse(fs.readFileSync(herald.configFile, 'utf8'));
  change(config);
  fs.writeFileSync(herald.configFile, JSON.stringify(config));
  herald = await herald.restart();
  await eventually(() => serverState(herald!)?.state === 'failed', 30_000);
  const second = await clientOf(herald).responses.create({
    model: 'clerk',
    previous_response_id: first.id,
    input: [{ type: 'mcp_approval_response', approval_request_id: request!.id, approve: true }],
    tools: again,
  });
  return { second, recorded: await herald.gateway.store.toolCalls.ofOwner('response', first.id) };
}

describe('Responses: an approved call whose configured MCP server is down when the turn resumes', () => {
  it('is failed, naming the server and its connection error, and the model gets that as the tool\'s error result', async () => {
    const { second, recorded } = await approvedAfterRestart();
    const [call] = ofType(second.output, 'mcp_call');
    expect(call).toMatchObject({ server_label: 'everything', name: 'echo', status: 'failed', output: null });
    expect(call!.error).toMatch(/^the server everything is not available \(failed: the server exited before it was ready/);
    expect(call!.error).not.toMatch(/granted|refused/);
    expect(recorded).toMatchObject([{ server: 'everything', tool: 'echo', status: 'failed', approval: { decision: 'approved', by: 'test' } }]);
    expect(recorded[0]!.error).toMatch(/^the server everything is not available \(failed: /);
    // the model is told the tool failed, not that anyone refused it
    const told = model!.requests.at(-1).messages.find((m: { role: string }) => m.role === 'tool').content as string;
    expect(told).toMatch(/^Error: the server everything is not available \(failed: the server exited before it was ready/);
    expect(second.output_text).toContain('the server everything is not available');
  }, 120_000);

  it('is failed too for an agent granted that server alone (no other tool of the turn is up)', async () => {
    const { second, recorded } = await approvedAfterRestart({ servers: ['everything'] });
    expect(ofType(second.output, 'mcp_call')[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the server everything is not available \(failed: /) });
    expect(recorded).toMatchObject([{ status: 'failed' }]);
  }, 120_000);

  it('is still refused when the config took the server from the agent since: not granted any longer', async () => {
    // the request can no longer name the server (400): it continues without it
    const { recorded } = await approvedAfterRestart({ change: (config) => (config.agents.list[0].tools.servers = ['herald']), again: [] });
    expect(recorded).toMatchObject([{ server: 'everything', tool: 'echo', status: 'refused', error: 'no tool named "everything__echo" is granted to this agent any longer' }]);
  }, 120_000);
});
