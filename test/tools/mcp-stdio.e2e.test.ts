import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/start-herald.js';
import { EVERYTHING, startServers, type ServersUnderTest } from './mcp-fixture.js';

let under: ServersUnderTest | undefined;
afterEach(async () => {
  await under?.servers.stop();
  under = undefined;
});

const spec = (name: string) => under!.servers.tools().find((t) => t.name === name)!;
const call = (name: string, args: Record<string, unknown> = {}, timeoutMs = 10_000) => under!.servers.call(spec(name), args, { timeoutMs });

describe('an MCP server over stdio (server-everything)', () => {
  it('lists its tools as <server>__<tool> with their schema, description and read-only annotation, and calls them', async () => {
    under = startServers({ mcpServers: { everything: { command: EVERYTHING, env: { HERALD_TEST_SECRET: 'do-not-log-me' } } } });
    await under.until('everything', 'ready');
    const echo = spec('everything__echo');
    expect(echo).toMatchObject({ server: 'everything', tool: 'echo', description: 'Echoes back the input string', readOnly: true });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    // readOnlyHint false: not read-only
    expect(spec('everything__toggle-simulated-logging').readOnly).toBe(false);
    for (const tool of under.servers.tools()) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    expect(await call('everything__echo', { message: 'hello' })).toEqual({ text: 'Echo: hello', isError: false });
    expect(await call('everything__get-sum', { a: 2, b: 3 })).toEqual({ text: 'The sum of 2 and 3 is 5.', isError: false });
    // an image is named, not pasted: its bytes mean nothing to a language model
    const image = await call('everything__get-tiny-image');
    expect(image.text).toMatch(/\[image image\/png, \d+ bytes\]/);
    // a resource link is named with its uri; an embedded resource is given with its uri
    expect((await call('everything__get-resource-links')).text).toMatch(/\[resource link .+: demo:\/\/resource\//);
    expect((await call('everything__get-resource-reference')).text).toMatch(/\[resource demo:\/\/resource\/\S+/);
    // the env given reaches the server, beside a minimal inherited one (PATH), and nothing else of herald's
    const env = JSON.parse((await call('everything__get-env')).text) as Record<string, string>;
    // (a configured secret is masked in whatever the server gives back, its own env too)
    expect(env.HERALD_TEST_SECRET).toBe('[secret]');
    expect(env.PATH).toBeTruthy();
    expect(Object.keys(env)).not.toContain('VITEST');
    // arguments the tool refuses: an error result, not a throw
    const wrong = await call('everything__get-sum', { a: 'two' });
    expect(wrong.isError).toBe(true);
    const health = under.servers.health()[0]!;
    expect(health).toMatchObject({ server: 'everything', transport: 'stdio', state: 'ready', restarts: 0 });
    expect(health.tools).toBe(under.servers.tools().length);
    // its stderr is in the log at debug; the env's values never are
    await eventually(() => under!.logs().includes('Starting default (STDIO) server'));
    expect(under.logs()).not.toContain('do-not-log-me');
  });

  it('offers the tools it can only run as tasks (herald calls them as tasks)', async () => {
    under = startServers({ mcpServers: { everything: { command: EVERYTHING } } });
    await under.until('everything', 'ready');
    // server-everything registers simulate-research-query (execution.taskSupport "required") once initialized, with list_changed
    await eventually(() => under!.servers.tools().some((t) => t.tool === 'simulate-research-query'));
    expect(under.servers.tools().map((t) => t.tool)).toContain('trigger-long-running-operation');
  });

  it('gives a time-out result for a call that takes longer than its limit, and the server keeps serving', async () => {
    under = startServers({ mcpServers: { everything: { command: EVERYTHING, timeoutSeconds: 0.5 } } });
    await under.until('everything', 'ready');
    const result = await call('everything__trigger-long-running-operation', { duration: 30, steps: 1 });
    expect(result).toEqual({ text: 'the server everything did not answer within 0.5s', isError: true, timedOut: true });
    expect(await call('everything__echo', { message: 'still here' })).toEqual({ text: 'Echo: still here', isError: false });
  });

  it('gives a cancelled result when the turn aborts the call', async () => {
    under = startServers({ mcpServers: { everything: { command: EVERYTHING } } });
    await under.until('everything', 'ready');
    const abort = new AbortController();
    const pending = under.servers.call(spec('everything__trigger-long-running-operation'), { duration: 30, steps: 1 }, { timeoutMs: 60_000, signal: abort.signal });
    abort.abort();
    expect(await pending).toMatchObject({ text: 'the call to the server everything was cancelled', isError: true });
  });

  it('cuts a long result with a note to the model', async () => {
    under = startServers({ maxResultChars: 10, mcpServers: { everything: { command: EVERYTHING } } });
    await under.until('everything', 'ready');
    const result = await call('everything__echo', { message: 'x'.repeat(100) });
    expect(result).toEqual({ text: `Echo: xxxx\n[result cut at 10 of 106 characters]`, isError: false });
  });

  it('answers a call in flight when the server dies, then starts the server again and says so in its health', async () => {
    under = startServers({ mcpServers: { everything: { command: EVERYTHING } } });
    await under.until('everything', 'ready');
    const pending = call('everything__trigger-long-running-operation', { duration: 30, steps: 1 }, 60_000);
    // the process, found by its parent (this test's process runs no other server-everything)
    process.kill(await childPid(), 'SIGKILL');
    expect(await pending).toEqual({ text: 'the server everything exited during the call', isError: true });
    await eventually(() => under!.servers.health()[0]!.restarts >= 1 && under!.servers.health()[0]!.state === 'ready', 15_000);
    expect(under.servers.health()[0]!.lastError).toBeUndefined();
    expect(await call('everything__echo', { message: 'again' })).toEqual({ text: 'Echo: again', isError: false });
  });

  it('marks a server whose command does not exist failed, and answers its calls with an error', async () => {
    under = startServers({ mcpServers: { missing: { command: 'herald-no-such-mcp-server' } } });
    await under.until('missing', 'failed');
    expect(under.servers.health()[0]!.lastError).toMatch(/ENOENT/);
    const result = await under.servers.call({ name: 'missing__x', server: 'missing', tool: 'x', description: '', inputSchema: { type: 'object' }, readOnly: false }, {}, { timeoutMs: 1000 });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^the server missing is not available \(failed: .*ENOENT/);
    // stop() ends its retries at once
    await under.servers.stop();
    expect(under.servers.health()[0]!.state).toBe('stopped');
  });
});

/** the pid of this process's child running server-everything */
async function childPid(): Promise<number> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.includes('mcp-server-everything'));
  if (!line) throw new Error(`no server-everything child in:\n${out}`);
  return Number(line.trim().split(/\s+/)[0]);
}
