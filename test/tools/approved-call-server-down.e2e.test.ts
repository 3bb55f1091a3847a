import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * A call a person approved whose MCP server is down when its run resumes (herald restarted, the
 * server no longer starts): the call failed, it was not refused. Its record says so with the
 * server and the connection's error, and the model is told the tool failed. The server is npm's
 * reference MCP server (@modelcontextprotocol/server-everything), started as `node server.mjs`
 * from the config's folder, so removing the script takes it down.
 */
const EVERYTHING_MAIN = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let model: ToolCallingModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
const runOf = async (h: TestApp, id: string) => (await (await h.request(`/admin/runs/${id}`, { headers: admin })).json()) as Record<string, any>;
const serverState = (h: TestApp) => h.gateway.mcp.health().find((s) => s.server === 'everything');

/**
 * A run of `ops` waiting for approval of its call of the server's `echo`; then herald restarts
 * with the server's script gone (so it does not start), `change` applied to its config first;
 * the call approved; the run once it finished.
 */
async function approvedAfterRestart(change: (config: Record<string, any>) => void = () => {}) {
  model = await startToolCallingModel(callInRounds([[{ name: 'everything__echo', arguments: { message: 'hello' } }]]));
  const h = await testApp(
    {
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['everything'], requireApproval: 'always' } }] },
      tools: { mcpServers: { everything: { command: process.execPath, args: ['server.mjs'] } } },
    },
    { files: { 'server.mjs': `import ${JSON.stringify(EVERYTHING_MAIN)};\n` } },
  );
  await eventually(() => serverState(h)?.state === 'ready', 60_000);
  const res = await h.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Echo hello', deliver: false }) });
  const { runId } = (await res.json()) as { runId: string };
  await eventually(async () => (await runOf(h, runId)).status === 'waiting_approval');

  fs.rmSync(path.join(h.dir, 'server.mjs'));
  const config = JSON.parse(fs.readFileSync(h.configFile, 'utf8'));
  change(config);
  fs.writeFileSync(h.configFile, JSON.stringify(config));
  const again = await h.restart();
  await eventually(() => serverState(again)?.state === 'failed', 30_000);
  const [pending] = ((await (await again.request('/admin/approvals', { headers: admin })).json()) as { data: { id: string }[] }).data;
  expect((await again.request(`/admin/approvals/${pending!.id}/approve`, { method: 'POST', headers: admin })).status).toBe(200);
  return eventually(async () => {
    const r = await runOf(again, runId);
    return ['succeeded', 'failed'].includes(r.status) ? r : undefined;
  });
}

describe('an approved call whose MCP server is down when the run resumes', () => {
  it('is recorded as failed, naming the server and its connection error; the model is told the tool failed', async () => {
    const run = await approvedAfterRestart();
    expect(run.status).toBe('succeeded');
    // the run's page: the call failed, with the server and why it is not connected
    const [call] = run.toolCalls;
    expect(call).toMatchObject({ server: 'everything', tool: 'echo', status: 'failed', approval: { decision: 'approved' } });
    expect(call.error).toMatch(/^the server everything is not available \(failed: the server exited before it was ready/);
    // the model is told the tool failed, not that anyone refused it
    const told = model!.requests.at(-1).messages.find((m: { role: string }) => m.role === 'tool').content as string;
    expect(told).toMatch(/^Error: the server everything is not available \(failed: the server exited before it was ready/);
    expect(told).not.toMatch(/refused|no tool named|granted/);
  }, 120_000);

  it('is still refused when the config took the server from the agent since: not granted any longer', async () => {
    const run = await approvedAfterRestart((config) => (config.agents.list[0].tools.servers = ['herald']));
    const [call] = run.toolCalls;
    expect(call).toMatchObject({ server: 'everything', tool: 'echo', status: 'refused', error: 'no tool named "everything__echo" is granted to this agent any longer' });
  }, 120_000);
});
