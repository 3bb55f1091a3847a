import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, baseConfig, eventually, tempDir } from '../helpers/start-herald.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { startTicketServer, type TicketServer } from '../tools/ticket-server.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * A governed call through /mcp in flight when `herald serve` is killed with SIGKILL: the upstream
 * server holds the call, the process dies, and the next start records the call `interrupted`
 * (its client's session died with the process, nothing else would ever end its record) and never
 * makes it again. Real processes, a real MCP server, the SDK's Client.
 */
let spawned: SpawnedHerald | undefined;
let tickets: TicketServer | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  await tickets?.close();
  spawned = tickets = undefined;
});

const row = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT status, error, owner_kind AS ownerKind, key_name AS keyName FROM tool_calls WHERE server = 'tickets'").all();
  } finally {
    db.close();
  }
};

describe('a governed /mcp call when herald is killed -9', { timeout: 120_000 }, () => {
  it('is recorded interrupted at the next start, and never made again', async () => {
    tickets = await startTicketServer();
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    const dbFile = path.join(dir, 'herald.db');
    fs.writeFileSync(
      file,
      JSON.stringify(
        baseConfig({
          storage: { sqlite: dbFile },
          platform: { mcp: { enabled: true }, apiKeys: [{ name: 'ops', key: API_KEY, tools: { servers: ['tickets'] } }] },
          tools: { mcpServers: { tickets: { url: tickets.url } } },
        }),
      ),
    );
    spawned = spawnHerald(['serve', '--config', file]);
    const url = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const client = new Client({ name: 'kill-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${API_KEY}` } } }));
    tickets.holdNext();
    const call = client.callTool({ name: 'tickets__close_ticket', arguments: { id: '42' } }).catch((error: unknown) => error);
    await eventually(() => tickets!.invocations.length === 1, 30_000);
    expect(row(dbFile)).toEqual([expect.objectContaining({ status: 'running', ownerKind: 'mcp', keyName: 'ops' })]);

    spawned.child.kill('SIGKILL');
    await spawned.exited;
    // the client would try to resume the call's stream (its priming event named where) on the dead address: it gives up
    await client.close().catch(() => undefined);
    expect(await call).toBeInstanceOf(Error);

    spawned = spawnHerald(['serve', '--config', file]);
    await spawned.waitFor(/herald listening on/);
    expect(row(dbFile)).toEqual([expect.objectContaining({ status: 'interrupted', error: expect.stringContaining('not executed again') })]);
    tickets.release();
    expect(tickets.invocations).toEqual([{ tool: 'close_ticket', id: '42' }]);
  });
});
