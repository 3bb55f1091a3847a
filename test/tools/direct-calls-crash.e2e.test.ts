import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { baseConfig, eventually, GATEWAY_TOKEN, tempDir } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from './ticket-server.js';

/**
 * A mapping's direct tool call (`action: "tool"`) across a kill -9 of `herald serve` (the real
 * CLI, on SQLite), the MCP server in another process (this one) counting what reaches it: a write
 * in flight at the kill is `interrupted` after the restart and never made a second time, even
 * with a `retry` policy; a read in flight is made again (it does nothing more the second time).
 * No model is asked (the fake model counts its requests).
 */
const SECRET = 'tickets-webhook-secret-0123456789';

let herald: SpawnedHerald | undefined;
let model: ToolCallingModel | undefined;
let tickets: TicketServer | undefined;
afterEach(async () => {
  await killLeftOver(herald);
  await model?.close();
  await tickets?.close();
  herald = model = tickets = undefined;
});

/** herald.json: the ticket server as `crm`, a signed mapping that calls `tool` directly, granted, retried up to 3 times */
function writeConfig(tool: string): string {
  const dir = tempDir();
  const file = path.join(dir, 'herald.json');
  const config = baseConfig({
    storage: { sqlite: path.join(dir, 'herald.db') },
    models: { providers: { fake: { api: 'openai', baseUrl: model!.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model' } },
    tools: { mcpServers: { crm: { url: tickets!.url } } },
    hooks: {
      mappings: [
        {
          id: 'close-on-merge',
          match: { path: 'tickets' },
          auth: { type: 'github', secret: SECRET },
          action: 'tool',
          tool,
          arguments: { id: '{{ id }}' },
          tools: { grant: ['crm__close_ticket'] },
          retry: { attempts: 3, initialMs: 0 },
        },
      ],
    },
  });
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

async function serve(file: string, options: { untilToolsReady: boolean }): Promise<string> {
  herald = spawnHerald(['serve', '--config', file]);
  const url = (await herald.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
  if (options.untilToolsReady) {
    await eventually(async () => ((await (await fetch(`${url}/readyz`)).json()) as { degraded?: unknown }).degraded === undefined, 30_000);
  }
  return url;
}

async function kill9(): Promise<void> {
  herald!.child.kill('SIGKILL');
  await herald!.exited;
  herald = undefined;
}

const runOf = async (url: string, id: string) =>
  (await (await fetch(`${url}/admin/runs/${id}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as Record<string, any>;
const runIn = (url: string, id: string, statuses: string[]) =>
  eventually(async () => {
    const run = await runOf(url, id);
    return statuses.includes(run.status) ? run : undefined;
  }, 60_000);

/** what GitHub sends: X-Hub-Signature-256, an HMAC of the raw body, and no hook token */
async function signedHook(url: string, payload: unknown): Promise<string> {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const res = await fetch(`${url}/hooks/tickets`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

// real processes and a real SIGKILL: generous limits, no timing threshold
describe('a direct tool call across a kill -9 of herald serve', { timeout: 180_000 }, () => {
  it('a write in flight at the kill is interrupted after the restart: the server counted one call, and the retry policy does not make it again', async () => {
    model = await startToolCallingModel();
    tickets = await startTicketServer();
    const file = writeConfig('crm__close_ticket');
    let url = await serve(file, { untilToolsReady: true });

    tickets.holdNext();
    const runId = await signedHook(url, { id: 'T-9' });
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    expect(await runOf(url, runId)).toMatchObject({ status: 'running', toolCalls: [{ tool: 'close_ticket', status: 'running' }] });
    await kill9();
    tickets.release();

    url = await serve(file, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the call was interrupted: herald stopped while it ran, and it was not made again/) });
    expect(finished.toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'interrupted', readOnly: false }]);
    // the server saw it once: not made again at the restart, nor by the retry policy (a write may have taken effect)
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-9' }]);
    // still once after the restart's queue has drained (a second take would have called it again)
    const again = await runOf(url, runId);
    expect(again.toolCalls).toHaveLength(1);
    expect(tickets.invocations).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
  });

  it('a read in flight at the kill is made again after the restart (it does nothing more the second time), and the run succeeds with its result', async () => {
    model = await startToolCallingModel();
    tickets = await startTicketServer();
    const file = writeConfig('crm__lookup_ticket');
    let url = await serve(file, { untilToolsReady: true });

    tickets.holdNext();
    const runId = await signedHook(url, { id: 'T-10' });
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    await kill9();
    tickets.release();

    url = await serve(file, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished).toMatchObject({ status: 'succeeded', reply: 'ticket T-10 is open' });
    expect(finished.toolCalls).toMatchObject([{ tool: 'lookup_ticket', readOnly: true, status: 'succeeded', result: 'ticket T-10 is open' }]);
    expect(tickets.invocations).toEqual([
      { tool: 'lookup_ticket', id: 'T-10' },
      { tool: 'lookup_ticket', id: 'T-10' },
    ]);
    expect(model.requests).toHaveLength(0);
  });
});
