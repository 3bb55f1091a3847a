import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../src/cli/evals/eval-command.js';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { builtinPlugins } from '../../plugins/index.js';
import { quoteResults, startToolCallingModel, type ModelScript, type ModelStep, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { eventually, GATEWAY_TOKEN, hookHeaders } from '../helpers/start-herald.js';
import { testApp, type TestApp } from '../http/app-fixture.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';

/**
 * `herald eval` against candidates, over a day recorded through the real pipeline: hook runs of
 * an agent whose model (a fake speaking OpenAI's tool_calls) reads a real MCP server (the SDK's,
 * counting each call it receives), and a ping its mapping skipped. Then: fixture expectations met
 * and broken, a mapping change (the skipped event now runs), a model change, a tool denied in the
 * candidate, a judge scoring with a rubric, --repeat, and --resume after a stop.
 */
let tickets: TicketServer;
let recordingModel: ToolCallingModel;
let otherModel: ToolCallingModel;
let judgeModel: ToolCallingModel;
let h: TestApp;
let dir: string;

/** looks the ticket up when asked to, then quotes what it read; a CANDIDATE prompt answers otherwise */
const lookingUp = (prefix: string): ModelScript => (body, n) => {
  const messages: any[] = body.messages;
  const user = String(messages.findLast((m) => m.role === 'user')?.content ?? '');
  const called = messages.some((m) => m.role === 'tool');
  const id = /T-\d+/.exec(user)?.[0];
  if (!called && id && user.includes('lookup')) return { calls: [{ name: 'crm__lookup_ticket', arguments: { id } }] };
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '');
  const quoted = (quoteResults(body, n) as { text: string }).text;
  return { text: `${system.includes('CANDIDATE') ? 'Candidate: ' : prefix}${quoted}` };
};

/** another provider's model: its answers alternate, so repeats of one request differ */
let otherAnswers = 0;
const alternating: ModelScript = (body, n) => {
  const step = lookingUp('')(body, n) as ModelStep;
  return step.calls ? step : { text: `Other model (${otherAnswers++ % 2}): ${step.text}` };
};

const TICKETS_MAPPING = `- id: tickets
  match: { path: tickets }
  action: agent
  agentId: ops
  messageTemplate: "lookup {{ id }}"
  deliver: false
`;
const TICKETS_FIXTURES = JSON.stringify([
  { name: 'met', payload: { id: 'T-1' }, expect: { toolCalls: [{ tool: 'crm__lookup_ticket', arguments: { id: 'T-1' } }], replyIncludes: ['done'] } },
  { name: 'broken', payload: { id: 'T-2' }, expect: { replyIncludes: ['closed'] } },
]);

beforeAll(async () => {
  tickets = await startTicketServer();
  recordingModel = await startToolCallingModel(lookingUp(''));
  otherModel = await startToolCallingModel(alternating);
  judgeModel = await startToolCallingModel(() => ({ text: 'Scored: {"score": 4, "verdict": "better", "reason": "it names the ticket"}' }));
  h = await testApp(
    {
      hooks: { retainPayloads: true, mappings: [{ id: 'pings', match: { path: 'pings' }, action: 'skip' }] },
      models: {
        providers: {
          fake: { api: 'openai', baseUrl: recordingModel.url, apiKey: 'sk-fake' },
          other: { api: 'openai', baseUrl: otherModel.url, apiKey: 'sk-other' },
          judge: { api: 'openai', baseUrl: judgeModel.url, apiKey: 'sk-judge' },
        },
      },
      agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', instructions: 'You help the ops team.', tools: { servers: ['crm'] } }] },
      tools: { mcpServers: { crm: { url: tickets.url } } },
    },
    { files: { 'mappings/tickets.yaml': TICKETS_MAPPING, 'mappings/tickets.test.json': TICKETS_FIXTURES } },
  );
  dir = h.dir;
  await eventually(() => h.gateway.mcp.tools().length === 2, 30_000);
  const runs: string[] = [];
  for (const id of ['T-1', 'T-2']) {
    const res = await h.request('/hooks/tickets', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ id }) });
    expect(res.status).toBe(202);
    runs.push(((await res.json()) as { runId: string }).runId);
  }
  expect((await h.request('/hooks/pings', { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ id: 'T-3' }) })).status).toBe(204);
  for (const id of runs) {
    await eventually(async () => ((await (await h.request(`/admin/runs/${id}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { status: string }).status === 'succeeded', 30_000);
  }
  expect(tickets.invocations).toHaveLength(2);
}, 90_000);

afterAll(async () => {
  await h?.stop();
  await Promise.all([tickets?.close(), recordingModel?.close(), otherModel?.close(), judgeModel?.close()]);
});

function capture(): CliIo & { outText: () => string; errText: () => string; onErr?: (line: string) => void } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo & { outText: () => string; errText: () => string; onErr?: (line: string) => void } = {
    out: (l) => out.push(l),
    err: (l) => {
      err.push(l);
      io.onErr?.(l);
    },
    stdout: process.stdout,
    stderr: process.stderr,
    outText: () => out.join('\n'),
    errText: () => err.join('\n'),
  };
  return io;
}

/** `herald eval --config … --yes --json <args>`: its exit code and its report */
async function evaluate(...args: string[]): Promise<{ code: number; report: any; err: string }> {
  const io = capture();
  const code = await evalCommand(['--config', h.configFile, '--yes', '--json', ...args], io, builtinPlugins);
  return { code, report: io.outText() ? JSON.parse(io.outText()) : undefined, err: io.errText() };
}

const recordedCases = (report: any) => report.cases.filter((c: any) => c.source === 'recording');
const byTicket = (report: any, id: string) => recordedCases(report).find((c: any) => c.recorded?.message === `lookup ${id}`);

describe('herald eval against candidates', { timeout: 120_000 }, () => {
  it("checks a mapping's fixture expectations: one met, one broken, and --fail-on expectations fails on it", async () => {
    const { code, report, err } = await evaluate('--mapping', 'tickets', '--fail-on', 'expectations');
    expect(code).toBe(1);
    expect(err).toContain('failed on expectations');
    const fixtures = Object.fromEntries(report.cases.filter((c: any) => c.source === 'fixture').map((c: any) => [c.label, c]));
    expect(fixtures.met.expectations).toEqual({ ok: true, failures: [] });
    expect(fixtures.broken.expectations).toEqual({ ok: false, failures: ['expected the reply to include "closed"'] });
    // a fixture's lookup is a read the recording did not make: reported, not executed without --live-reads
    expect(fixtures.met.candidate.toolCalls).toMatchObject([{ tool: 'crm__lookup_ticket', by: 'not-executed' }]);
    expect(tickets.invocations).toHaveLength(2);
  });

  it('a mapping change: the ping the recording skipped now runs an agent turn, its read reported and not made', async () => {
    const candidate = path.join(dir, 'candidate-pings.yaml');
    fs.writeFileSync(candidate, 'id: pings\nmatch: { path: pings }\naction: agent\nagentId: ops\nmessageTemplate: "lookup {{ id }}"\ndeliver: false\n');
    const { code, report } = await evaluate('--mappings', candidate, '--mapping', 'pings', '--no-fixtures', '--fail-on', 'mapping-changed');
    expect(code).toBe(1);
    expect(report.summary).toMatchObject({ requests: 1, changed: { mapping: 1 } });
    const [ping] = report.cases;
    expect(ping.recorded).toMatchObject({ outcome: 'skip', mappingId: 'pings' });
    expect(ping.candidate).toMatchObject({ outcome: 'agent', mappingId: 'pings', message: 'lookup T-3', toolCalls: [{ tool: 'crm__lookup_ticket', by: 'not-executed' }] });
    expect(ping.changes).toEqual(expect.arrayContaining(['mapping', 'tool-calls', 'reply']));
    expect(tickets.invocations).toHaveLength(2);
  });

  it("a model change: the other provider's model answers, its tool calls answered from the recording", async () => {
    const asked = otherModel.requests.length;
    const { code, report } = await evaluate('--override', 'agents.ops.model=other/tool-model', '--no-fixtures', '--mapping', 'tickets');
    expect(code).toBe(0);
    expect(report.summary).toMatchObject({ requests: 2, changed: { reply: 2, 'tool-calls': 0 } });
    const t1 = byTicket(report, 'T-1');
    expect(t1.recorded).toMatchObject({ model: 'fake/tool-model', reply: 'Done: ticket T-1 is open' });
    expect(t1.candidate).toMatchObject({ model: 'other/tool-model', reply: expect.stringMatching(/^Other model \(\d\): Done: ticket T-1 is open$/), toolCalls: [{ tool: 'crm__lookup_ticket', by: 'recording' }] });
    expect(otherModel.requests.length).toBeGreaterThan(asked);
    expect(tickets.invocations).toHaveLength(2);
  });

  it('a tool denied in the candidate: the call the model asks for is refused and reported, the MCP server gets no call', async () => {
    const { code, report } = await evaluate('--override', 'agents.ops.tools={"servers":["crm"],"deny":["crm__lookup_ticket"]}', '--no-fixtures', '--mapping', 'tickets', '--fail-on', 'reply-changed');
    expect(code).toBe(1);
    const t2 = byTicket(report, 'T-2');
    expect(t2.candidate.toolCalls).toMatchObject([{ tool: 'crm__lookup_ticket', status: 'refused', note: expect.stringContaining('crm__lookup_ticket') }]);
    expect(t2.candidate.reply).toMatch(/^Done: Error: /);
    expect(t2.changes).toContain('reply');
    expect(tickets.invocations).toHaveLength(2);
  });

  it('--judge scores the changed replies by the rubric file, with the judge model', async () => {
    const rubric = path.join(dir, 'rubric.md');
    fs.writeFileSync(rubric, 'A good reply names the ticket and its state.');
    const { code, report } = await evaluate('--override', 'agents.ops.instructions=CANDIDATE prompt', '--judge', 'judge/judge-model', '--rubric', rubric, '--no-fixtures', '--mapping', 'tickets');
    expect(code).toBe(0);
    for (const c of recordedCases(report)) expect(c.judge).toEqual({ score: 4, verdict: 'better', reason: 'it names the ticket' });
    // the judge was given the rubric, the request, and both replies
    const asked = judgeModel.requests.at(-1);
    expect(asked.messages[0].content).toContain('A good reply names the ticket and its state.');
    expect(asked.messages[1].content).toMatch(/Old reply:\nDone: ticket T-\d is open\n\nNew reply:\nCandidate: Done: ticket T-\d is open/);
    const missing = capture();
    expect(await evalCommand(['--config', h.configFile, '--judge', 'judge/judge-model'], missing, builtinPlugins)).toBe(2);
    expect(missing.errText()).toContain('--judge needs --rubric FILE');
  });

  it('--repeat 3 asks the candidate three times per request and says how many different answers it gave', async () => {
    const { report } = await evaluate('--override', 'agents.ops.model=other/tool-model', '--repeat', '3', '--no-fixtures', '--mapping', 'tickets', '--limit', '1');
    const [only] = recordedCases(report);
    expect(only.repeats).toEqual({ runs: 3, distinctReplies: 2, distinctToolCalls: 1 });
  });

  it('--resume: stopped after 1 of 3, resumed from --out, the same summary as a run straight through', async () => {
    const straight = await evaluate('--override', 'agents.ops.instructions=CANDIDATE prompt', '--no-fixtures');
    expect(straight.report.summary.requests).toBe(3);
    const out = path.join(dir, 'eval-results.jsonl');
    const first = capture();
    // a Ctrl-C as the first result is printed: the eval stops after the request in flight
    first.onErr = (line) => void (line.startsWith('[1/3]') && process.emit('SIGINT'));
    const args = ['--config', h.configFile, '--yes', '--json', '--override', 'agents.ops.instructions=CANDIDATE prompt', '--no-fixtures', '--out', out];
    expect(await evalCommand(args, first, builtinPlugins)).toBe(130);
    expect(first.errText()).toContain('stopped: 1 of 3 done; go on with the same command and --resume');
    expect(fs.readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(1);
    const resumed = capture();
    expect(await evalCommand([...args, '--resume'], resumed, builtinPlugins)).toBe(0);
    expect(resumed.errText()).toContain('[3/3]');
    expect(fs.readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(3);
    expect(JSON.parse(resumed.outText()).summary).toEqual(straight.report.summary);
  });
});
