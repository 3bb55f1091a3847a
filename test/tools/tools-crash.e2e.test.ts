import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders, tempDir } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from './ticket-server.js';

/**
 * Tool calls survive a kill -9 of `herald serve` (the real CLI, on SQLite): a run waiting for a
 * person is still waiting after the restart and is finished by the decision; a call that was in
 * flight is not executed again (it may have taken effect) unless its tool only reads, and the
 * model is told. What the user sees is asserted: the admin API, the MCP server, the model.
 */
const SECRET = 'tickets-webhook-secret-0123456789';

let herald: SpawnedHerald | undefined;
let model: ToolCallingModel | undefined;
let tickets: TicketServer | undefined;
/** the operator's channel (a Standard Webhooks receiver: `webhook-id` is its idempotency key), where approvals are announced */
let operator: FakeServer | undefined;
afterEach(async () => {
  await killLeftOver(herald);
  await model?.close();
  await tickets?.close();
  await operator?.close();
  herald = model = tickets = operator = undefined;
});

interface Setup {
  dir: string;
  file: string;
}

/**
 * A folder with herald.json: the ticket server as `crm`, an agent granted its tools, a signed
 * mapping that grants the write, and approvals announced on the operator's webhook channel.
 */
function writeConfig(): Setup {
  const dir = tempDir();
  const file = path.join(dir, 'herald.json');
  const config = baseConfig({
    storage: { sqlite: path.join(dir, 'herald.db') },
    models: { providers: { fake: { api: 'openai', baseUrl: model!.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model' }, list: [{ id: 'ops', tools: { servers: ['crm'] } }] },
    tools: { mcpServers: { crm: { url: tickets!.url } }, approvals: { targets: [{ channel: 'webhook' }] } },
    channels: { webhook: { url: `${operator!.url}/inbox` } },
    delivery: { baseDelayMs: 50 },
    hooks: {
      mappings: [
        {
          id: 'tickets',
          match: { path: 'tickets' },
          messageTemplate: 'Ticket {{ id }}: {{ text }}',
          deliver: false,
          // its summary waits for a heartbeat (off here): the model is asked for the run alone
          wakeMode: 'next-heartbeat',
          // GitHub's scheme: a request signed with the secret may make the agent close a ticket without a person
          auth: { type: 'github', secret: SECRET },
          tools: { grant: ['crm__close_ticket'] },
        },
      ],
    },
  });
  fs.writeFileSync(file, JSON.stringify(config));
  return { dir, file };
}

/**
 * Starts `herald serve`. The first start waits until the MCP server is connected (a hook sent
 * before would find no tools); a restart does not: a run the dead process left is taken back at
 * once, whether the server is connected yet or not, as it is for a user.
 */
async function serve(setup: Setup, options: { untilToolsReady: boolean }): Promise<string> {
  herald = spawnHerald(['serve', '--config', setup.file]);
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

async function admin(url: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; json: any } | undefined> {
  const res = await fetch(`${url}/admin${p}`, {
    method,
    headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

const runOf = async (url: string, id: string) => (await admin(url, 'GET', `/runs/${id}`))!.json as Record<string, any>;
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

async function unsignedHook(url: string, message: string): Promise<string> {
  const res = await fetch(`${url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message, deliver: false, wakeMode: 'next-heartbeat' }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

/** the tool results the model was sent in its last request */
const lastToolResults = () => model!.requests.at(-1).messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content);

// real processes and a real SIGKILL: generous limits, no timing threshold
describe('tool calls across a kill -9 of herald serve', { timeout: 180_000 }, () => {
  it('a run waiting for approval still waits after the restart; approved through the admin API, the call runs once and the run finishes', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-1' } }]]));
    tickets = await startTicketServer();
    operator = await startFakeServer();
    const setup = writeConfig();
    let url = await serve(setup, { untilToolsReady: true });

    // the hook token alone does not let the agent write: the call waits for a person
    const runId = await unsignedHook(url, 'Close ticket T-1, it is done');
    expect((await runIn(url, runId, ['waiting_approval', 'succeeded', 'failed'])).status).toBe('waiting_approval');
    await kill9();

    url = await serve(setup, { untilToolsReady: false });
    const run = await runOf(url, runId);
    expect(run.status).toBe('waiting_approval');
    expect(run.toolCalls).toMatchObject([{ server: 'crm', tool: 'close_ticket', status: 'waiting_approval', approvalRequired: true, approval: null }]);
    const listed = (await admin(url, 'GET', '/approvals'))!;
    expect(listed.status).toBe(200);
    expect(listed.json.data).toMatchObject([{ id: run.toolCalls[0].id, ownerId: runId, tool: 'close_ticket', arguments: { id: 'T-1' }, run: { id: runId, status: 'waiting_approval' } }]);
    // nothing reached the server while it waited, and nothing when herald started again
    expect(tickets.invocations).toEqual([]);

    const approved = (await admin(url, 'POST', `/approvals/${run.toolCalls[0].id}/approve`, { reason: 'T-1 is done' }))!;
    expect(approved.status).toBe(200);
    expect(approved.json.approval).toMatchObject({ decision: 'approved', by: 'gateway-token', reason: 'T-1 is done' });

    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.reply).toBe('Done: closed T-1');
    expect(finished.toolCalls).toMatchObject([{ status: 'succeeded', result: 'closed T-1', approval: { decision: 'approved', by: 'gateway-token' } }]);
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-1' }]);
    // asked once before the pause and once after: the checkpoint spared the model a second ask
    expect(model.requests).toHaveLength(2);
    expect((await admin(url, 'GET', '/approvals'))!.json.data).toEqual([]);
    // the operator was told once, whether the notice left before the kill or after the restart (one webhook-id)
    const notices = await eventually(() => {
      const received = operator!.requests.filter((r) => r.path === '/inbox');
      return received.length ? received : undefined;
    }, 30_000);
    expect(new Set(notices.map((n) => n.headers['webhook-id'])).size).toBe(1);
    expect(notices[0]!.json.text).toContain(`herald approval needed: close_ticket on crm`);
    expect(notices[0]!.json.text).toContain(`POST /admin/approvals/${run.toolCalls[0].id}/approve`);
  });

  it('approved, then a kill -9 while the approved call runs: interrupted after the restart, not made again', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-5' } }]]));
    tickets = await startTicketServer();
    operator = await startFakeServer();
    const setup = writeConfig();
    let url = await serve(setup, { untilToolsReady: true });

    const runId = await unsignedHook(url, 'Close ticket T-5');
    const waiting = await runIn(url, runId, ['waiting_approval', 'succeeded', 'failed']);
    expect(waiting.status).toBe('waiting_approval');
    tickets.holdNext();
    expect((await admin(url, 'POST', `/approvals/${waiting.toolCalls[0].id}/approve`))!.status).toBe(200);
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    await kill9();
    tickets.release();

    url = await serve(setup, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'interrupted', approval: { decision: 'approved', by: 'gateway-token' } }]);
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-5' }]);
    expect(model.requests).toHaveLength(2);
    expect(lastToolResults()).toEqual([expect.stringMatching(/^Error: the call was interrupted/)]);
  });

  it('a kill -9 after the call answered, while the model is asked again: the result is given from the record, the call not made again', async () => {
    const script = callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-6' } }]]);
    let holdAnswer = true;
    model = await startToolCallingModel((body, n) => {
      const hasResult = body.messages.some((m: any) => m.role === 'tool');
      // the first request with the call's result is never answered: herald dies while it waits
      if (hasResult && holdAnswer) {
        holdAnswer = false;
        return new Promise(() => undefined);
      }
      return script(body, n);
    });
    tickets = await startTicketServer();
    operator = await startFakeServer();
    const setup = writeConfig();
    let url = await serve(setup, { untilToolsReady: true });

    const runId = await signedHook(url, { id: 'T-6', text: 'done' });
    await eventually(() => model!.requests.length === 2, 60_000);
    expect((await runOf(url, runId)).toolCalls).toMatchObject([{ status: 'succeeded', result: 'closed T-6' }]);
    await kill9();

    url = await serve(setup, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.reply).toBe('Done: closed T-6');
    expect(finished.toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'succeeded', result: 'closed T-6' }]);
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-6' }]);
    // asked for the calls once: the restart went on from the checkpoint, the result from the record
    expect(model.requests).toHaveLength(3);
    expect(lastToolResults()).toEqual(['closed T-6']);
  });

  it('a write in flight at the kill is recorded interrupted, not executed again, and the model is told', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-2' } }]]));
    tickets = await startTicketServer();
    operator = await startFakeServer();
    const setup = writeConfig();
    let url = await serve(setup, { untilToolsReady: true });

    // signed, and the mapping grants the write: no person is asked; the server holds the call
    tickets.holdNext();
    const runId = await signedHook(url, { id: 'T-2', text: 'fixed in 1.4' });
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    expect((await runOf(url, runId)).toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'running', approvalRequired: false }]);
    await kill9();
    tickets.release();

    url = await serve(setup, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'interrupted', error: expect.stringMatching(/^the call was interrupted/) }]);
    // the server saw it once: herald did not close the ticket a second time
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-2' }]);
    // the model was told, and answered from there: asked once before the kill and once after
    expect(model.requests).toHaveLength(2);
    expect(lastToolResults()).toEqual([expect.stringMatching(/^Error: the call was interrupted: herald stopped while it ran, and it was not executed again/)]);
    expect(finished.reply).toMatch(/^Done: Error: the call was interrupted/);
  });

  it('a write in flight at the kill, its server gone when herald is back: interrupted all the same, and the model is told', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-4' } }]]));
    tickets = await startTicketServer();
    operator = await startFakeServer();
    const setup = writeConfig();
    let url = await serve(setup, { untilToolsReady: true });

    tickets.holdNext();
    const runId = await signedHook(url, { id: 'T-4', text: 'duplicate' });
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    await kill9();
    await tickets.close();

    // the run goes on without the server's tools: each call the model made still gets its answer
    url = await serve(setup, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'interrupted' }]);
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-4' }]);
    expect(model.requests).toHaveLength(2);
    expect(lastToolResults()).toEqual([expect.stringMatching(/^Error: the call was interrupted/)]);
  });

  it('a read in flight at the kill is executed again after the restart, and the model gets its result', async () => {
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__lookup_ticket', arguments: { id: 'T-3' } }]]));
    tickets = await startTicketServer();
    operator = await startFakeServer();
    const setup = writeConfig();
    let url = await serve(setup, { untilToolsReady: true });

    tickets.holdNext();
    const runId = await signedHook(url, { id: 'T-3', text: 'what state is it in?' });
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    await kill9();
    tickets.release();

    url = await serve(setup, { untilToolsReady: false });
    const finished = await runIn(url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.toolCalls).toMatchObject([{ tool: 'lookup_ticket', readOnly: true, status: 'succeeded', result: 'ticket T-3 is open' }]);
    expect(tickets.invocations).toEqual([
      { tool: 'lookup_ticket', id: 'T-3' },
      { tool: 'lookup_ticket', id: 'T-3' },
    ]);
    expect(model.requests).toHaveLength(2);
    expect(lastToolResults()).toEqual(['ticket T-3 is open']);
    expect(finished.reply).toBe('Done: ticket T-3 is open');
  });
});
