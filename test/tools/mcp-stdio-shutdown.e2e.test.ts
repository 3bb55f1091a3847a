import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';
import { EVERYTHING } from './mcp-fixture.js';

/**
 * A stdio MCP server started through a shell, with a child of its own (`sleep`, holding the
 * server's stdout as a forked helper would): herald's SIGTERM shutdown ends all of them, not only
 * the shell it started. The shell writes each pid to a file, so the test checks each process.
 */
let spawned: SpawnedHerald | undefined;
let pids: number[] = [];

afterEach(async () => {
  await killLeftOver(spawned);
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  spawned = undefined;
  pids = [];
});

/**
 * process.kill(pid, 0) finds the process; one ended but not yet reaped (a zombie: PID 1 of a
 * container may never reap the orphans it inherits) has ended all the same.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

describe('a stdio MCP server that starts children', () => {
  it("is ended with all its children by herald's SIGTERM shutdown", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'herald.json');
    // stdin kept on fd 3: a background job of a non-interactive shell otherwise reads /dev/null
    const script = `echo $$ > pids; sleep 1000 & echo $! >> pids; exec 3<&0; "${EVERYTHING}" <&3 3<&- & echo $! >> pids; wait`;
    fs.writeFileSync(file, JSON.stringify(baseConfig({ tools: { mcpServers: { shell: { command: 'sh', args: ['-c', script] } } } })));
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    await spawned.waitFor(/"server":"shell"[^\n]*"msg":"tool server ready"/);
    pids = fs.readFileSync(path.join(dir, 'pids'), 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(alive(pid), `pid ${pid} before shutdown`).toBe(true);

    spawned.child.kill('SIGTERM');
    expect(await spawned.exited).toBe(0);
    expect(spawned.stdout()).toMatch(/"msg":"stopped"/);
    for (const pid of pids) expect(alive(pid), `pid ${pid} after shutdown`).toBe(false);
  });
});
