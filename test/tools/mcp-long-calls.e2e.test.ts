import { afterEach, describe, expect, it } from 'vitest';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { eventually } from '../helpers/start-herald.js';
import { startServers, type ServersUnderTest } from './mcp-fixture.js';
import { startMcpHttpServer, type McpHttpServer } from './mcp-http-server.js';

/**
 * Long calls (issue 81, item 4), against the SDK's own server: its progress notifications keep a
 * call alive past its timeout up to its total limit, and a call herald gives up on (its time
 * limit, its total limit, the turn's abort) is cancelled at the server (notifications/cancelled,
 * which the SDK's server turns into the handler's aborted signal).
 */
let under: ServersUnderTest | undefined;
let remote: McpHttpServer | undefined;
afterEach(async () => {
  await under?.servers.stop();
  await remote?.close();
  under = remote = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `steps` progress notifications `everyMs` apart (forever when steps is 0), then `done`; each cancellation the server saw is pushed to `cancelled` */
function longTools(cancelled: string[]) {
  return (mcp: McpServer) => {
    mcp.registerTool('work', { description: 'reports progress while it works' }, async (extra) => {
      const { steps, everyMs } = { steps: 12, everyMs: 100 };
      const token = extra._meta?.progressToken;
      for (let i = 1; steps === 0 || i <= steps; i++) {
        if (extra.signal.aborted) {
          cancelled.push('work');
          return { content: [{ type: 'text', text: 'stopped' }] };
        }
        await sleep(everyMs);
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, ...(steps && { total: steps }) } });
      }
      return { content: [{ type: 'text', text: `done, progress token ${token === undefined ? 'absent' : 'given'}` }] };
    });
    mcp.registerTool('forever', { description: 'reports progress and never ends' }, async (extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; ; i++) {
        if (extra.signal.aborted) {
          cancelled.push('forever');
          return { content: [{ type: 'text', text: 'stopped' }] };
        }
        await sleep(100);
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i } }).catch(() => undefined);
      }
    });
    mcp.registerTool('hang', { description: 'says nothing until cancelled' }, async (extra) => {
      await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve()));
      cancelled.push('hang');
      return { content: [{ type: 'text', text: 'stopped' }] };
    });
  };
}

const toolOf = (name: string) => under!.servers.tools().find((t) => t.tool === name)!;

describe('long calls to an MCP server', () => {
  it('keeps a call that reports progress alive past its timeout, and gets its result', async () => {
    const cancelled: string[] = [];
    remote = await startMcpHttpServer(longTools(cancelled));
    // 12 progress notifications 100 ms apart: 1.2 s of work against a 0.6 s timeout
    under = startServers({ mcpServers: { slow: { url: remote.url, timeoutSeconds: 0.6 } } });
    await under.until('slow', 'ready');
    const result = await under.servers.call(toolOf('work'), {}, { timeoutMs: 600 });
    expect(result).toEqual({ text: 'done, progress token given', isError: false });
    expect(cancelled).toEqual([]);
  });

  it('stops a call whose progress goes on past its total limit, and tells the server', async () => {
    const cancelled: string[] = [];
    remote = await startMcpHttpServer(longTools(cancelled));
    under = startServers({ mcpServers: { slow: { url: remote.url, timeoutSeconds: 0.5, maxCallSeconds: 1.5 } } });
    await under.until('slow', 'ready');
    const result = await under.servers.call(toolOf('forever'), {}, { timeoutMs: 500 });
    expect(result).toMatchObject({ isError: true, timedOut: true });
    expect(result.text).toBe('the server slow did not finish within 1.5s (its progress kept the call alive until its total limit)');
    await eventually(() => cancelled.includes('forever'));
  });

  it('tells the server a call that timed out is cancelled', async () => {
    const cancelled: string[] = [];
    remote = await startMcpHttpServer(longTools(cancelled));
    under = startServers({ mcpServers: { slow: { url: remote.url, timeoutSeconds: 0.5 } } });
    await under.until('slow', 'ready');
    const result = await under.servers.call(toolOf('hang'), {}, { timeoutMs: 500 });
    expect(result).toMatchObject({ isError: true, timedOut: true, text: 'the server slow did not answer within 0.5s' });
    await eventually(() => cancelled.includes('hang'));
  });

  it("tells the server a call the turn aborted (a cancelled run) is cancelled", async () => {
    const cancelled: string[] = [];
    remote = await startMcpHttpServer(longTools(cancelled));
    under = startServers({ mcpServers: { slow: { url: remote.url } } });
    await under.until('slow', 'ready');
    const abort = new AbortController();
    const pending = under.servers.call(toolOf('hang'), {}, { timeoutMs: 60_000, signal: abort.signal });
    await sleep(200);
    abort.abort(new Error('run cancelled'));
    expect(await pending).toMatchObject({ isError: true, text: 'the call to the server slow was cancelled' });
    await eventually(() => cancelled.includes('hang'));
  });
});
