import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { main } from '../helpers/builtins.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr };
  return { io, out, err };
}

function writeConfig(value: unknown, name = 'herald.json'): string {
  const file = path.join(tempDir(), name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

describe('herald CLI main()', () => {
  it('config check: ok for a valid file', async () => {
    const file = writeConfig(baseConfig());
    const { io, out } = captureIo();
    expect(await main(['config', 'check', '--config', file], io)).toBe(0);
    expect(out).toEqual([`${file}: ok`]);
  });

  it('config check: prints every fault, each naming its key, and exits 1', async () => {
    const file = writeConfig(
      "hooks:\n  enabled: true\n  pth: /x\ngateway:\n  port: -1\nheartbeat:\n  every: '${UNSET_HERALD_VAR}'\nstorage:\n  sqlite: 42\n",
      'herald.yaml',
    );
    const { io, err } = captureIo();
    expect(await main(['config', 'check', '--config', file], io)).toBe(1);
    // one pass: the cross-key fault (hooks.token) is found although the file has schema faults too
    expect(err[0]).toBe(`${file}: 5 faults`);
    const text = err.join('\n');
    expect(text).toMatch(/hooks\.token: required when hooks\.enabled is true/);
    expect(text).toMatch(/hooks\.pth: unknown key/);
    expect(text).toMatch(/gateway\.port:/);
    expect(text).toMatch(/environment variable UNSET_HERALD_VAR is not set \(used by heartbeat\.every\)/);
    expect(text).toMatch(/storage\.sqlite:/);
  });

  it('config check: the cross-key refusals too', async () => {
    const file = writeConfig({ hooks: { enabled: true, path: '/' } });
    const { io, err } = captureIo();
    expect(await main(['config', 'check', '--config', file], io)).toBe(1);
    expect(err.join('\n')).toMatch(/hooks\.token: required when hooks\.enabled is true/);
    expect(err.join('\n')).toMatch(/hooks\.path: must not be "\/"/);
  });

  it('serve refuses a faulty config with the key named and exit code 1', async () => {
    for (const [config, key] of [
      [{ hooks: { enabled: true } }, /hooks\.token: required/],
      [baseConfig({ hooks: { path: '/' } }), /hooks\.path: must not be "\/"/],
      [baseConfig({ hooks: { token: 'sk-test-0123456789abcdef0123' } }), /hooks\.token: must differ from platform\.apiKeys\[0\]/],
      // the config's own folder is no database file
      [baseConfig({ storage: { sqlite: '.' } }), /storage\.sqlite: cannot open /],
    ] as const) {
      const file = writeConfig(config);
      const { io, err } = captureIo();
      expect(await main(['serve', '--config', file], io)).toBe(1);
      expect(err[0]).toBe('herald: the configuration has faults:');
      expect(err.join('\n')).toMatch(key);
    }
  });

  it('lists the commands on --help and fails on an unknown one', async () => {
    const help = captureIo();
    expect(await main(['--help'], help.io)).toBe(0);
    const listed = help.out.join('\n');
    for (const command of ['serve', 'config check', 'docs']) expect(listed).toContain(command);
    const unknown = captureIo();
    expect(await main(['frobnicate'], unknown.io)).toBe(2);
  });
});
