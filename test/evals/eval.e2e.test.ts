import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evalCommand } from '../../src/cli/evals/eval-command.js';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { builtinPlugins } from '../../plugins/index.js';
import { quoteResults, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';

/**
 * `herald eval` over a day recorded through the real pipeline: hook runs of an agent whose model
 * (a fake speaking OpenAI's tool_calls) reads and writes a real MCP server
 * (@modelcontextprotocol/server-memory over stdio, its graph in a file), then replayed through
 * candidates. The memory file is the MCP server's own record: an eval must never add to it.
 */
const require = createRequire(import.meta.url);
const memoryServer = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

let model: ToolCallingModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** the model: reads the graph when asked to look something up, writes an entity when asked to remember; what it says depends on its instructions */
const script = (body: any, n: number) => {
  const messages: any[] = body.messages;
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const candidate = system.includes('CANDIDATE');
  const user = messages.findLast((m) => m.role === 'user')?.content ?? '';
  const called = messages.some((m) => m.role === 'tool');
  if (!called && user.includes('remember')) {
    const name = candidate ? 'deploy-v2' : 'deploy';
    return { calls: [{ name: 'memory__create_entities', arguments: { entities: [{ name, entityType: 'event', observations: ['shipped'] }] } }] };
  }
  if (!called && user.includes('lookup')) return { calls: [{ name: 'memory__read_graph', arguments: {} }] };
  const quoted = quoteResults(body, n) as { text: string };
  return { text: candidate ? `Candidate: ${quoted.text}` : quoted.text };
};

function capture(): CliIo & { outText: () => string; errText: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr, outText: () => out.join('\n'), errText: () => err.join('\n') };
}

const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };

async function record(h: TestApp, message: string): Promise<string> {
  const res = await h.request('/hooks/agent', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message, agentId: 'ops', deliver: false }) });
  expect(res.status).toBe(202);
  const { runId } = (await res.json()) as { runId: string };
  return runId;
}

const runStatus = async (h: TestApp, id: string) => ((await (await h.request(`/admin/runs/${id}`, { headers: admin })).json()) as { status: string }).status;

describe('herald eval', () => {
  it('replays a recorded day through a changed prompt: replies and tool calls compared, writes never executed, exit codes', async () => {
    model = await startToolCallingModel(script);
    const memoryFile = path.join(fs.mkdtempSync('/tmp/herald-eval-'), 'memory.jsonl');
    const h = await testApp({
      hooks: { retainPayloads: true },
      models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', instructions: 'You help the ops team.', tools: { servers: ['memory'] } }] },
      tools: { mcpServers: { memory: { command: process.execPath, args: [memoryServer], env: { MEMORY_FILE_PATH: memoryFile } } } },
    });
    // a read runs at once; a write over an unsigned request waits for a person, who approves it
    const lookup = await record(h, 'lookup what we shipped');
    await eventually(async () => ((await runStatus(h, lookup)) === 'succeeded' ? true : undefined), 60_000);
    const remember = await record(h, 'remember the deploy');
    await eventually(async () => ((await runStatus(h, remember)) === 'waiting_approval' ? true : undefined), 60_000);
    const [pending] = await h.gateway.store.toolCalls.pendingApprovals(10);
    await h.gateway.store.toolCalls.decide(pending!.id, { decision: 'approved', by: 'alice', at: Date.now() });
    await eventually(async () => ((await runStatus(h, remember)) === 'succeeded' ? true : undefined), 60_000);
    const graphBefore = fs.readFileSync(memoryFile, 'utf8');
    expect(graphBefore).toContain('"deploy"');
    const modelCalls = model.requests.length;

    // the same config: nothing changes, every call answered from the recording
    const same = capture();
    // a model that costs tokens is not sent to without a yes; there is no terminal to ask here
    const asked = capture();
    expect(await evalCommand(['--config', h.configFile], asked, builtinPlugins)).toBe(2);
    expect(asked.errText()).toContain('This eval sends about');
    expect(asked.errText()).toContain('pass --yes');
    expect(await evalCommand(['--config', h.configFile, '--yes', '--json', '--fail-on', 'reply-changed,tool-calls-changed'], same, builtinPlugins)).toBe(0);
    const unchanged = JSON.parse(same.outText());
    expect(unchanged.summary).toMatchObject({ requests: 2, fromRecording: 2, unchanged: 2, intendedWrites: 0 });
    expect(unchanged.cases.flatMap((c: any) => c.candidate.toolCalls.map((t: any) => t.by))).toEqual(['recording', 'recording']);

    // a candidate prompt: the model answers otherwise and writes another entity, which is reported, never made
    const changed = capture();
    const code = await evalCommand(['--config', h.configFile, '--override', 'agents.ops.instructions=CANDIDATE prompt', '--yes', '--json', '--fail-on', 'reply-changed'], changed, builtinPlugins);
    expect(code).toBe(1);
    expect(changed.errText()).toContain('failed on reply-changed');
    const report = JSON.parse(changed.outText());
    expect(report.summary).toMatchObject({ requests: 2, unchanged: 0, intendedWrites: 1, changed: { reply: 2, 'tool-calls': 1, mapping: 0 } });
    const byMessage = Object.fromEntries(report.cases.map((c: any) => [c.recorded.message, c]));
    const write = byMessage['remember the deploy'];
    expect(write.toolCallDiff.changed).toEqual([{ tool: 'memory__create_entities', before: expect.stringContaining('"deploy"'), after: expect.stringContaining('"deploy-v2"') }]);
    expect(write.intended).toMatchObject([{ tool: 'memory__create_entities', by: 'not-executed', wouldWait: true }]);
    expect(write.candidate.reply).toContain('Candidate: Done: Error: not executed (an evaluation replay): a write');
    expect(byMessage['lookup what we shipped'].candidate.toolCalls).toMatchObject([{ tool: 'memory__read_graph', by: 'recording' }]);
    // the MCP server saw no write: its graph is as the recording left it
    expect(fs.readFileSync(memoryFile, 'utf8')).toBe(graphBefore);
    // the live gateway's record is untouched: no run, no tool call, no usage added by the evals
    expect((await h.gateway.store.browse.runs({ limit: 10 })).length).toBe(2);
    expect(model.requests.length).toBeGreaterThan(modelCalls);

    // a selection that matches nothing, and a flag that is wrong
    const none = capture();
    expect(await evalCommand(['--config', h.configFile, '--agent', 'nobody'], none, builtinPlugins)).toBe(0);
    expect(none.outText()).toContain('0 requests replayed');
    const wrong = capture();
    expect(await evalCommand(['--config', h.configFile, '--fail-on', 'everything'], wrong, builtinPlugins)).toBe(2);
    expect(wrong.errText()).toContain('--fail-on everything: not a condition');
    const missing = capture();
    expect(await evalCommand(['--config', h.configFile, '--override', 'agents.nobody.instructions=x'], missing, builtinPlugins)).toBe(1);
    expect(missing.errText()).toContain('agents.nobody.instructions: no agent "nobody" in agents.list');
    // each eval starts the candidate's MCP servers, a process each
  }, 180_000);
});
