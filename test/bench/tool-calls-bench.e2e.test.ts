import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareClientScript, measureBare } from '../../bench/bare-tool-calls.js';
import { startChildServer, type ChildServer } from '../../bench/child-server.js';
import { EVERYTHING, measureHerald, startToolsHerald, type ToolsHerald } from '../../bench/tool-calls-herald.js';

// The tools benchmark divides each side's CPU by the calls it counts: herald's turns and the bare
// client must really make them, against the same server, or the per-call figures mean nothing.
// This pins both sides to real, successful calls of server-everything's echo.
let model: ChildServer;
let herald: ToolsHerald | undefined;

beforeAll(async () => {
  model = await startChildServer({ name: 'model', args: ['--import', 'tsx', path.resolve('bench/tool-calling-upstream.ts')] });
}, 60_000);
afterAll(async () => {
  await herald?.stop();
  await model?.stop();
});

const complete = (body: unknown): Promise<any> => fetch(`${model.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());

describe('the tools bench', () => {
  it("has a model that calls the tool as OpenAI's chat completion object shows, then answers once it has the results", async () => {
    const asked = await complete({ model: 'calls-2-everything__echo', messages: [{ role: 'user', content: 'Hi' }] });
    expect(asked.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { role: 'assistant', content: null } });
    const calls = asked.choices[0].message.tool_calls;
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ type: 'function', function: { name: 'everything__echo', arguments: '{"message":"call 0"}' } });
    expect(calls[0].id).not.toBe(calls[1].id);

    const results = [{ role: 'assistant', content: null, tool_calls: calls }, ...calls.map((c: { id: string }) => ({ role: 'tool', tool_call_id: c.id, content: 'Echo: call' }))];
    const answered = await complete({ model: 'calls-2-everything__echo', messages: [{ role: 'user', content: 'Hi' }, ...results] });
    expect(answered.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'done' } });
    expect((await complete({ model: 'calls-0-everything__echo', messages: [] })).choices[0].finish_reason).toBe('stop');
  });

  it("counts herald's calls from its record, each one executed and succeeded", async () => {
    herald = await startToolsHerald({ agents: [{ server: 'stdio', calls: 2 }], model: model.url, withStdio: true });
    const measured = await measureHerald(herald, { server: 'stdio', calls: 2 }, { connections: 2, seconds: 1, warmupSeconds: 0, serverPid: herald.stdioServerPid });
    expect(measured.turnsPerSecond).toBeGreaterThan(0);
    expect(measured.callsPerSecond).toBe(measured.turnsPerSecond * 2);
    expect(measured.callP50Ms).toBeTypeOf('number');
    expect(measured.serverCpuMsPerCall).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('has a bare client that makes the same calls of the same server and counts the answered ones', async () => {
    const measured = await measureBare(await bareClientScript(), { server: { command: EVERYTHING }, tool: 'echo', concurrency: 2, callsPerTurn: 2, warmupSeconds: 0, seconds: 0.5 });
    expect(measured.callsPerSecond).toBeGreaterThan(0);
    expect(measured.cpuMsPerCall).toBeGreaterThan(0);
    expect(measured.callP50Ms).toBeLessThanOrEqual(measured.callP99Ms!);
  }, 60_000);
});
