import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let group: number | undefined;
afterEach(() => {
  // npm, its shell and herald share the process group the test gave them: a herald left behind goes too
  if (group !== undefined) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
  group = undefined;
});

// `npm start` runs its script through `sh -c`, and npm forwards SIGTERM/SIGINT to that shell only
// (@npmcli/run-script's signal manager): the script execs herald, so the signal reaches herald itself
describe('npm start (spawned)', { timeout: 90_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm's process stops herald: its port closes and the store closes cleanly`, async () => {
      const dir = tempDir();
      const file = path.join(dir, 'herald.json');
      fs.writeFileSync(file, JSON.stringify(baseConfig()));
      const npm = spawn('npm', ['start', '--', '--config', file, '--port', '0'], {
        cwd: ROOT,
        env: { ...process.env, HERALD_CONFIG: undefined },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      group = npm.pid;
      let out = '';
      let err = '';
      npm.stdout!.on('data', (c) => (out += String(c)));
      npm.stderr!.on('data', (c) => (err += String(c)));
      const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
      const closed = new Promise<void>((resolve) => npm.on('close', () => resolve()));
      const deadline = Date.now() + 60_000;
      let url: string | undefined;
      while (!(url = err.match(/herald listening on (http:\/\/\S+)/)?.[1])) {
        if (npm.exitCode !== null || Date.now() > deadline) throw new Error(`herald did not start\nstdout:\n${out}\nstderr:\n${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect((await fetch(`${url}/healthz`)).status).toBe(200);

      npm.kill(signal);
      expect(await exited).toBe(0);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      await closed;
      expect(out).toMatch(new RegExp(`"signal":"${signal}".*"msg":"shutting down"`));
      expect(out).toMatch(/"msg":"stopped"/);
    });
  }
});
