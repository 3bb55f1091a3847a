import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { answers, ensureTestPostgres } from './postgres-server.js';
import { testPgUrl } from './postgres.js';
import { tempDir } from './start-herald.js';

/** a port nothing listens on: taken from the system, then released */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('the PostgreSQL the tests run against', () => {
  it('is an embedded PostgreSQL, started in a temporary folder, when nothing answers; said loudly; gone after stop', { timeout: 120_000 }, async () => {
    const closed = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    const lines: string[] = [];
    const server = await ensureTestPostgres({ defaultUrl: closed, notice: (line) => lines.push(line) });
    try {
      expect(server.source).toBe('embedded');
      expect(lines.join('\n')).toContain(`nothing answers at ${closed}`);
      expect(lines.join('\n')).toContain('embedded PostgreSQL');
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
      await client.query('CREATE SCHEMA herald_probe; CREATE TABLE herald_probe.t (id int); INSERT INTO herald_probe.t VALUES (1)');
      await client.end();
      expect(rows[0]!.db).toBe('test');
    } finally {
      await server.stop();
    }
    expect(await answers(server.url)).toBeDefined();
    const folder = /data in (\S+),/.exec(lines.join('\n'))![1]!;
    expect(fs.existsSync(folder)).toBe(false);
  });

  it('is the server that answers, started by nobody, when one does', async () => {
    const lines: string[] = [];
    const server = await ensureTestPostgres({ defaultUrl: testPgUrl(), notice: (line) => lines.push(line) });
    expect(server.source).toBe('machine');
    expect(server.url).toBe(testPgUrl());
    expect(lines).toEqual([]);
  });

  it('fails naming HERALD_TEST_PG_URL when the server it names does not answer', async () => {
    const closed = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    await expect(ensureTestPostgres({ configuredUrl: closed })).rejects.toThrow(`PostgreSQL is not reachable at HERALD_TEST_PG_URL=${closed}`);
  });

  it('leaves a failed run failed: the embedded server does not change the exit code of the process that started it', { timeout: 120_000 }, () => {
    const script = path.join(tempDir('herald-pg-exit-'), 'exit-code.mts');
    const helper = fileURLToPath(new URL('./postgres-server.ts', import.meta.url));
    fs.writeFileSync(script, `import { ensureTestPostgres } from ${JSON.stringify(helper)};\nconst server = await ensureTestPostgres({ forceEmbedded: true, notice: () => {} });\nawait server.stop();\nprocess.exitCode = 3;\n`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 110_000 });
    expect(run.stderr).not.toContain('Error');
    expect(run.status).toBe(3);
  });
});
