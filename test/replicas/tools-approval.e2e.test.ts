import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { baseConfig, eventually, GATEWAY_TOKEN, hookHeaders, tempDir } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';

/**
 * Two `herald serve` processes (the real CLI) on one PostgreSQL schema: a run that paused for a
 * person on one replica is approved through the other's admin API, with the first one dead, and
 * the second finishes it. The call reaches the MCP server once.
 */
const SECRET = 'tickets-webhook-secret-0123456789';
const replicas: (SpawnedHerald | undefined)[] = [];
let model: ToolCallingModel | undefined;
let tickets: TicketServer | undefined;
let schema: string | undefined;
afterEach(async () => {
  for (const r of replicas.splice(0)) await killLeftOver(r);
  await model?.close();
  await tickets?.close();
  if (schema) await dropSchema(schema);
  model = tickets = schema = undefined;
});

/**
 * The config both replicas serve: the ticket server as `crm`, an agent granted its tools, a dead
 * replica's runs retaken after 2 s; runs' summaries wait for a heartbeat (off): the model is asked for the runs alone.
 */
function writeConfig(): string {
  const file = path.join(tempDir(), 'herald.json');
  const config = baseConfig({
    storage: { postgres: { url: PG_URL, schema } },
    models: { providers: { fake: { api: 'openai', baseUrl: model!.url, apiKey: 'sk-fake' } } },
    agents: { defaults: { model: 'fake/tool-model', leaseMs: 2000 }, list: [{ id: 'ops', tools: { servers: ['crm'] } }] },
    tools: { mcpServers: { crm: { url: tickets!.url } } },
    hooks: { mappings: [{ id: 'tickets', match: { path: 'tickets' }, messageTemplate: 'Ticket {{ id }}: {{ text }}', deliver: false, wakeMode: 'next-heartbeat', auth: { type: 'github', secret: SECRET }, tools: { grant: ['crm__close_ticket'] } }] },
  });
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

async function start(file: string): Promise<{ herald: SpawnedHerald; url: string }> {
  const herald = spawnHerald(['serve', '--config', file]);
  replicas.push(herald);
  const url = (await herald.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
  // its MCP server connected (connected in the background): a hook sent before would find no tools
  await eventually(async () => ((await (await fetch(`${url}/readyz`)).json()) as { degraded?: unknown }).degraded === undefined, 30_000);
  return { herald, url };
}

async function admin(url: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/admin${p}`, {
    method,
    headers: { authorization: `Bearer ${GATEWAY_TOKEN}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

const runIn = (url: string, id: string, statuses: string[]) =>
  eventually(async () => {
    const run = (await admin(url, 'GET', `/runs/${id}`)).json;
    return statuses.includes(run.status) ? run : undefined;
  }, 60_000);

describe('two replicas on one PostgreSQL database, tool calls', { timeout: 180_000 }, () => {
  it('paused on one replica, approved through the other with the first one dead: the second executes the call once and finishes the run', async () => {
    await requirePostgres();
    schema = uniqueSchema('herald_tools_approval');
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-9' } }]]));
    tickets = await startTicketServer();
    const file = writeConfig();

    // the first replica alone: it claims the run, and its call waits for a person (a write, over a hook's content)
    const first = await start(file);
    const accepted = await fetch(`${first.url}/hooks/agent`, { method: 'POST', headers: hookHeaders(), body: JSON.stringify({ message: 'Close ticket T-9', deliver: false, wakeMode: 'next-heartbeat' }) });
    expect(accepted.status).toBe(202);
    const { runId } = (await accepted.json()) as { runId: string };
    expect((await runIn(first.url, runId, ['waiting_approval', 'succeeded', 'failed'])).status).toBe('waiting_approval');
    await first.herald.waitFor(new RegExp(`"runId":"${runId}".*"run waits for approval"`));

    // the second replica comes up, and the first dies
    const second = await start(file);
    first.herald.child.kill('SIGKILL');
    await first.herald.exited;

    const pending = (await admin(second.url, 'GET', '/approvals')).json.data;
    expect(pending).toMatchObject([{ ownerId: runId, server: 'crm', tool: 'close_ticket', arguments: { id: 'T-9' }, run: { id: runId, status: 'waiting_approval' } }]);
    expect(tickets.invocations).toEqual([]);
    const approved = await admin(second.url, 'POST', `/approvals/${pending[0].id}/approve`);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.approval).toMatchObject({ decision: 'approved', by: 'gateway-token' });

    const finished = await runIn(second.url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.reply).toBe('Done: closed T-9');
    expect(finished.toolCalls).toMatchObject([{ status: 'succeeded', result: 'closed T-9', approval: { decision: 'approved', by: 'gateway-token' } }]);
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-9' }]);
    // the second replica finished it (the first was dead), from the checkpoint: the model was asked once on each
    // logged once its completion is written, which the admin API may show first
    await second.herald.waitFor(new RegExp(`"runId":"${runId}".*"run finished"`));
    expect(model.requests).toHaveLength(2);
    // nothing waits any more
    expect((await admin(second.url, 'GET', '/approvals')).json.data).toEqual([]);
  });

  it('a replica dies with a write in flight: the other retakes the run once its lease runs out, records the call interrupted and does not make it again', async () => {
    await requirePostgres();
    schema = uniqueSchema('herald_tools_inflight');
    model = await startToolCallingModel(callInRounds([[{ name: 'crm__close_ticket', arguments: { id: 'T-10' } }]]));
    tickets = await startTicketServer();
    const file = writeConfig();
    // the first replica alone claims the run; signed, and the mapping grants the write: it makes the call, held by the server
    const first = await start(file);
    tickets.holdNext();
    const body = JSON.stringify({ id: 'T-10', text: 'fixed' });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const accepted = await fetch(`${first.url}/hooks/tickets`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
    expect(accepted.status).toBe(202);
    const { runId } = (await accepted.json()) as { runId: string };
    await eventually(() => tickets!.invocations.length === 1, 60_000);
    expect((await admin(first.url, 'GET', `/runs/${runId}`)).json.toolCalls).toMatchObject([{ status: 'running' }]);

    // the second replica comes up, and the first dies mid-call
    const second = await start(file);
    first.herald.child.kill('SIGKILL');
    await first.herald.exited;
    tickets.release();

    const finished = await runIn(second.url, runId, ['succeeded', 'failed', 'timed_out']);
    expect(finished.status).toBe('succeeded');
    expect(finished.toolCalls).toMatchObject([{ tool: 'close_ticket', status: 'interrupted' }]);
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: 'T-10' }]);
    expect(model.requests).toHaveLength(2);
    expect(model.requests.at(-1).messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content)).toEqual([expect.stringMatching(/^Error: the call was interrupted/)]);
    // logged once its completion is written, which the admin API may show first
    await second.herald.waitFor(new RegExp(`"runId":"${runId}".*"run finished"`));
  });
});
