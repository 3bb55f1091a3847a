import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders, tempDir } from '../helpers/start-herald.js';

/**
 * A call its server runs as a task (MCP 2025-11-25, tasks, through the SDK's client) survives a
 * kill -9 of `herald serve`: the task's handle is on the call's record, and the herald started
 * again on the same store polls the task for its result and gives it to the run, without calling
 * the tool again. The server is a real SDK McpServer in a process of its own, so the kill leaves
 * it (and its task) running.
 */
const TASK_SERVER = fileURLToPath(new URL('./servers/task-server.mjs', import.meta.url));

let herald: SpawnedHerald | undefined;
let model: ToolCallingModel | undefined;
let taskServer: ChildProcess | undefined;
afterEach(async () => {
  await killLeftOver(herald);
  await model?.close();
  taskServer?.kill('SIGKILL');
  herald = model = taskServer = undefined;
});

async function startTaskServer(): Promise<string> {
  taskServer = spawn(process.execPath, [TASK_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    taskServer!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /task server on (\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    taskServer!.once('exit', (code) => reject(new Error(`the task server exited (${code})`)));
  });
}

async function admin(url: string, method: 'GET' | 'POST', p: string): Promise<any> {
  const res = await fetch(`${url}/admin${p}`, { method, headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.json();
}

async function serve(file: string, untilToolsReady: boolean): Promise<string> {
  herald = spawnHerald(['serve', '--config', file]);
  const url = (await herald.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
  if (untilToolsReady) await eventually(async () => ((await (await fetch(`${url}/readyz`)).json()) as { degraded?: unknown }).degraded === undefined, 30_000);
  return url;
}

describe('a tool call run as a task, across a kill -9 of herald serve', { timeout: 180_000 }, () => {
  it('is polled again after the restart: the run completes with the task result, the tool called once', async () => {
    const mcpUrl = await startTaskServer();
    const serverBase = mcpUrl.replace(/\/mcp$/, '');
    model = await startToolCallingModel((body) =>
      body.messages.some((m: any) => m.role === 'tool')
        ? { text: `Done: ${body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content).join(' | ')}` }
        : { calls: [{ name: 'jobs__long_job', arguments: { job: 'J-1' } }] },
    );
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        baseConfig({
          storage: { sqlite: path.join(dir, 'herald.db') },
          models: { providers: { fake: { api: 'openai', baseUrl: model.url, apiKey: 'sk-fake' } } },
          agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['jobs'] } }] },
          tools: { mcpServers: { jobs: { url: mcpUrl } } },
        }),
      ),
    );
    let url = await serve(file, true);

    const res = await fetch(`${url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Run job J-1', deliver: false, wakeMode: 'next-heartbeat' }) });
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    // a write over outside content: a person approves it, then it runs (as a task)
    const waiting = await eventually(async () => {
      const run = await admin(url, 'GET', `/runs/${runId}`);
      return run.status === 'waiting_approval' ? run : undefined;
    }, 60_000);
    await admin(url, 'POST', `/approvals/${waiting.toolCalls[0].id}/approve`);
    const running = await eventually(async () => {
      const run = await admin(url, 'GET', `/runs/${runId}`);
      return run.toolCalls[0]?.task ? run : undefined;
    }, 60_000);
    expect(running.toolCalls[0]).toMatchObject({ status: 'running', task: { server: 'jobs', taskId: expect.any(String) } });

    herald!.child.kill('SIGKILL');
    await herald!.exited;
    herald = undefined;

    url = await serve(file, false);
    // the task is still working when herald comes back; it finishes now
    expect((await (await fetch(`${serverBase}/finish`, { method: 'POST' })).json())).toEqual({});
    const finished = await eventually(async () => {
      const run = await admin(url, 'GET', `/runs/${runId}`);
      return ['succeeded', 'failed', 'timed_out'].includes(run.status) ? run : undefined;
    }, 60_000);
    expect(finished.status).toBe('succeeded');
    expect(finished.reply).toBe('Done: job J-1 finished');
    expect(finished.toolCalls).toMatchObject([{ tool: 'long_job', status: 'succeeded', result: 'job J-1 finished', task: { taskId: running.toolCalls[0].task.taskId } }]);
    // the server was called once: after the restart herald polled the task, it did not call the tool again
    expect(await (await fetch(`${serverBase}/calls`)).json()).toEqual({ calls: 1 });
  });
});
