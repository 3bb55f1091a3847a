import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { commands } from '../../src/cli/commands.js';
import { main } from '../../src/cli/main.js';
import { builtinPlugins } from '../../plugins/index.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';
import { BIN } from './spawn-herald.js';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr };
  return { io, out: () => out.join('\n'), err: () => err.join('\n') };
}

const version = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('herald --help, --version, and mistakes named', () => {
  it('every command and subcommand answers --help and -h with its usage and options, exit 0', async () => {
    const plugin = builtinPlugins.flatMap((p) => (p.commands ?? []).map((c) => c.path.join(' ')));
    const all = [...Object.keys(commands), ...plugin];
    expect(all).toEqual(expect.arrayContaining(['serve', 'config check', 'hooks test', 'keys create', 'knowledge upload', 'webhooks gmail setup', 'webhooks gmail run']));
    for (const words of all) {
      for (const flag of ['--help', '-h']) {
        const cli = captureIo();
        expect(await main([...words.split(' '), flag], builtinPlugins, cli.io), `${words} ${flag}`).toBe(0);
        expect(cli.out()).toMatch(new RegExp(`^usage: herald ${words}`));
        expect(cli.err()).toBe('');
      }
    }
    const help = captureIo();
    expect(await main(['hooks', 'test', '--help'], builtinPlugins, help.io)).toBe(0);
    expect(help.out()).toContain('--payload FILE');
    expect(help.out()).toContain('-H, --header K:V');
    const gmail = captureIo();
    expect(await main(['webhooks', 'gmail', 'setup', '--help'], builtinPlugins, gmail.io)).toBe(0);
    expect(gmail.out()).toContain('--push-endpoint URL');
    // `help <command>` is the same as `<command> --help`
    const viaHelp = captureIo();
    expect(await main(['help', 'hooks', 'test'], builtinPlugins, viaHelp.io)).toBe(0);
    expect(viaHelp.out()).toBe(help.out());
  });

  it('--version prints the package version; --help lists every command', async () => {
    const v = captureIo();
    expect(await main(['--version'], builtinPlugins, v.io)).toBe(0);
    expect(v.out()).toBe(`herald ${version}`);
    const help = captureIo();
    expect(await main(['-h'], builtinPlugins, help.io)).toBe(0);
    for (const words of [...Object.keys(commands), 'webhooks gmail setup']) expect(help.out()).toContain(`  ${words} `);
  });

  it('an unknown command, subcommand or option is named with the nearest valid one, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['sevre'], /unknown command "sevre" \(did you mean "serve"\?\)/],
      [['keys', 'lst'], /unknown command "keys lst" \(did you mean "keys list"\?\)/],
      [['webhooks', 'gmail', 'stup'], /unknown command "webhooks gmail stup" \(did you mean "webhooks gmail setup"\?\)/],
      [['hooks', 'test', 'x', '--paylod', 'p.json'], /herald hooks test: unknown option "--paylod" \(did you mean "--payload"\?\)/],
      [['serve', '--prot', '1'], /unknown option "--prot" \(did you mean "--port"\?\)/],
      [['config', 'check', '--conifg', 'x'], /unknown option "--conifg" \(did you mean "--config"\?\)/],
      [['webhooks', 'gmail', 'setup', '--acount', 'a'], /unknown option "--acount" \(did you mean "--account"\?\)/],
      [['--verison'], /unknown option "--verison" \(did you mean "--version"\?\)/],
      [['frobnicate'], /unknown command "frobnicate"; herald --help lists the commands/],
    ];
    for (const [argv, message] of cases) {
      const cli = captureIo();
      expect(await main(argv, builtinPlugins, cli.io), argv.join(' ')).toBe(2);
      expect(cli.err()).toMatch(message);
    }
    const group = captureIo();
    expect(await main(['keys'], builtinPlugins, group.io)).toBe(2);
    expect(group.err()).toMatch(/herald keys create/);
  });

  it('a group of commands asked for its help (`herald cron --help`, `herald help cron`) lists its subcommands, exit 0', async () => {
    for (const argv of [['cron', '--help'], ['cron', '-h'], ['help', 'cron'], ['webhooks', 'gmail', '--help']]) {
      const cli = captureIo();
      expect(await main(argv, builtinPlugins, cli.io), argv.join(' ')).toBe(0);
      expect(cli.out()).toMatch(new RegExp(`^usage:\\n  herald ${argv.includes('help') ? 'cron' : argv.slice(0, -1).join(' ')} `));
      expect(cli.err()).toBe('');
    }
  });

  it('a reader that closes the pipe early (`herald presets list | head -1`) ends the command quietly', async () => {
    const child = spawn(process.execPath, [BIN, 'presets', 'list'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // closed before the command writes its first line: every write of it meets EPIPE
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += String(c)));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('loads only what the command uses: --help loads no server, store, model client or plugin', () => {
    const trace = path.join(tempDir(), 'loads.txt');
    const dir = tempDir();
    const config = path.join(dir, 'herald.json');
    fs.writeFileSync(config, JSON.stringify(baseConfig()));
    const loads = (args: string[]) => {
      fs.writeFileSync(trace, '');
      const hook = fileURLToPath(new URL('./trace-loads.mjs', import.meta.url));
      const run = spawnSync(process.execPath, ['--import', hook, BIN, ...args], { env: { ...process.env, HERALD_TRACE_LOADS: trace }, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      return fs.readFileSync(trace, 'utf8');
    };
    const help = loads(['serve', '--help']);
    for (const heavy of ['/node_modules/hono/', '/node_modules/openai/', '/node_modules/better-sqlite3/', '/node_modules/zod/', '/plugins/', '/src/http/']) {
      expect(help, heavy).not.toContain(heavy);
    }
    const check = loads(['config', 'check', '--config', config]);
    expect(check).toContain('/src/config/');
    for (const heavy of ['/node_modules/hono/', '/node_modules/openai/', '/node_modules/better-sqlite3/', '/node_modules/html-to-text/', '/src/http/']) {
      expect(check, heavy).not.toContain(heavy);
    }
  });
  it('a command that only talks to the gateway loads neither the plugins, the config schema, the YAML parser nor fetch', () => {
    const trace = path.join(tempDir(), 'loads.txt');
    const builtins = path.join(tempDir(), 'builtins.txt');
    const config = path.join(tempDir(), 'herald.json');
    fs.writeFileSync(config, JSON.stringify(baseConfig()));
    fs.writeFileSync(trace, '');
    const hook = fileURLToPath(new URL('./trace-loads.mjs', import.meta.url));
    // nothing listens on port 9: the command says so (exit 1) after loading all it would load to ask
    const run = spawnSync(process.execPath, ['--import', hook, BIN, 'runs', 'list', '--config', config, '--url', 'http://127.0.0.1:9'], {
      env: { ...process.env, HERALD_TRACE_LOADS: trace, HERALD_TRACE_BUILTINS: builtins },
      encoding: 'utf8',
    });
    expect(run.stderr).toContain('cannot reach http://127.0.0.1:9');
    const loaded = fs.readFileSync(trace, 'utf8');
    for (const heavy of ['/plugins/', '/node_modules/zod/', '/node_modules/yaml/', '/src/config/schema', '/src/plugin-host/']) expect(loaded, heavy).not.toContain(heavy);
    // Node's fetch is undici, loaded on its first call
    expect(fs.readFileSync(builtins, 'utf8')).not.toContain('undici');
  });
});
