import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { API_KEY, baseConfig, eventually, tempDir } from '../helpers/start-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';

/**
 * Two `herald serve` processes on one PostgreSQL schema, a governed call through replica A's /mcp
 * held by the upstream MCP server: while A lives (renewing its mark), B leaves the call alone
 * however long it runs; once A is killed with SIGKILL, B finds the mark's lease run out and
 * records the call `interrupted`, and nobody makes it again. Real processes, a real MCP server,
 * the SDK's Client.
 */
const LEASE_MS = 2000;
const replicas: (SpawnedHerald | undefined)[] = [];
let tickets: TicketServer | undefined;
let schema: string | undefined;
afterEach(async () => {
  for (const r of replicas.splice(0)) await killLeftOver(r);
  await tickets?.close();
  if (schema) await dropSchema(schema);
  tickets = schema = undefined;
});

async function rows(): Promise<{ status: string; error: string | null; owner_kind: string }[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(`SELECT status, error, owner_kind FROM ${schema}.tool_calls WHERE server = 'tickets'`)).rows;
  } finally {
    await client.end();
  }
}

async function start(file: string): Promise<{ herald: SpawnedHerald; url: string }> {
  const herald = spawnHerald(['serve', '--config', file]);
  replicas.push(herald);
  return { herald, url: (await herald.waitFor(/herald listening on (http:\/\/\S+)/))[1]! };
}

describe('a governed /mcp call when its PostgreSQL replica is killed -9', { timeout: 180_000 }, () => {
  it('is left alone while its replica lives, then recorded interrupted by the other once its lease runs out, and never made again', async () => {
    await requirePostgres();
    schema = uniqueSchema('herald_mcp_kill');
    tickets = await startTicketServer();
    const file = path.join(tempDir(), 'herald.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        baseConfig({
          storage: { postgres: { url: PG_URL, schema } },
          agents: { defaults: { leaseMs: LEASE_MS } },
          platform: { mcp: { enabled: true }, apiKeys: [{ name: 'ops', key: API_KEY, tools: { servers: ['tickets'] } }] },
          tools: { mcpServers: { tickets: { url: tickets.url } } },
        }),
      ),
    );
    // one after the other: the first migrates the schema
    const a = await start(file);
    await start(file);

    const client = new Client({ name: 'kill-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } }));
    tickets.holdNext();
    const call = client.callTool({ name: 'tickets__close_ticket', arguments: { id: '42' } }, undefined, { timeout: 120_000 }).catch((error: unknown) => error);
    await eventually(() => tickets!.invocations.length === 1, 30_000);

    // three leases and more with A alive: B's sweeps see A renewing its mark, and leave the call running
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3 + 500));
    expect(await rows()).toEqual([expect.objectContaining({ status: 'running', owner_kind: 'mcp' })]);

    a.herald.child.kill('SIGKILL');
    await a.herald.exited;
    // the client would try to resume the call's stream on the dead address: it gives up
    await client.close().catch(() => undefined);
    expect(await call).toBeInstanceOf(Error);

    // B, still serving, records it once A's lease has run out
    await eventually(async () => (await rows())[0]?.status === 'interrupted', 30_000);
    expect(await rows()).toEqual([expect.objectContaining({ status: 'interrupted', error: expect.stringContaining('not executed again') })]);
    tickets.release();
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: '42' }]);
  });
});
