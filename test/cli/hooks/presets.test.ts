import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { CliIo } from '../../../src/cli/io/cli-io.js';
import { main } from '../../helpers/builtins.js';
import { tempDir } from '../../helpers/start-herald.js';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr };
  return { io, out: () => out.join('\n'), err: () => err.join('\n') };
}

function configFile(config: unknown): string {
  const file = path.join(tempDir(), 'herald.json5');
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

describe('herald presets', () => {
  it('list: each preset with its path and what it verifies', async () => {
    const cli = captureIo();
    expect(await main(['presets', 'list'], cli.io)).toBe(0);
    expect(cli.out()).toMatch(/^gmail\s+\/gmail\s+the hook token/m);
  });

  it('show: the mapping set, as YAML, with the options given', async () => {
    const cli = captureIo();
    expect(await main(['presets', 'show', 'gmail', '--option', 'agentId=ops', '-o', 'deliver=false'], cli.io)).toBe(0);
    expect(parse(cli.out())).toEqual([expect.objectContaining({ id: 'gmail', match: { path: 'gmail' }, agentId: 'ops', deliver: false })]);
  });

  it('show: an unknown preset and an option that is not one are named', async () => {
    const unknown = captureIo();
    expect(await main(['presets', 'show', 'gmial'], unknown.io)).toBe(2);
    expect(unknown.err()).toContain('unknown preset "gmial" (did you mean "gmail"?)');
    const option = captureIo();
    expect(await main(['presets', 'show', 'gmail', '--option', 'colour=red'], option.io)).toBe(2);
    expect(option.err()).toContain('--option.colour: unknown key');
  });

  it('eject: writes <name>.yaml into the mappings folder, says to remove the preset line, never overwrites', async () => {
    const file = configFile({ hooks: { enabled: true, token: 'a-hook-token-long-enough', presets: ['gmail'], mappingsDir: './my-mappings' } });
    const written = path.join(path.dirname(file), 'my-mappings', 'gmail.yaml');
    const cli = captureIo();
    expect(await main(['presets', 'eject', 'gmail', '--config', file], cli.io)).toBe(0);
    expect(cli.out()).toContain(`wrote ${written}`);
    expect(cli.out()).toContain('remove "gmail" from hooks.presets');
    expect(parse(fs.readFileSync(written, 'utf8'))).toEqual([expect.objectContaining({ id: 'gmail', match: { path: 'gmail' } })]);

    fs.writeFileSync(written, '# mine\n');
    const again = captureIo();
    expect(await main(['presets', 'eject', 'gmail', '--config', file], again.io)).toBe(1);
    expect(again.err()).toContain('exists; not overwritten');
    expect(fs.readFileSync(written, 'utf8')).toBe('# mine\n');
  });

  it('the ejected file is a mapping file the config loads in place of the preset', async () => {
    const file = configFile({ hooks: { enabled: true, token: 'a-hook-token-long-enough', mappingsDir: './mappings' } });
    expect(await main(['presets', 'eject', 'gmail', '--config', file], captureIo().io)).toBe(0);
    const check = captureIo();
    expect(await main(['config', 'check', '--config', file], check.io)).toBe(0);
  });

  it("eject: an enabled preset's entry gives the ejected mappings its options, its secret's ${ENV} reference as written", async () => {
    const file = configFile({ hooks: { enabled: true, token: 'a-hook-token-long-enough', mappingsDir: './mappings', presets: [{ name: 'github', secret: '${GITHUB_WEBHOOK_SECRET}', events: ['issues'] }] } });
    const cli = captureIo();
    expect(await main(['presets', 'eject', 'github', '--config', file], cli.io)).toBe(0);
    expect(cli.err()).toContain(`options of hooks.presets[0] in ${file}`);
    const mappings = parse(fs.readFileSync(path.join(path.dirname(file), 'mappings', 'github.yaml'), 'utf8')) as { auth?: { secret: string } }[];
    expect(mappings.filter((m) => m.auth).map((m) => m.auth!.secret)).toEqual(mappings.map(() => '${GITHUB_WEBHOOK_SECRET}'));
  });

  it('config check names an unknown preset, an option that is not one and a missing secret', async () => {
    const file = configFile({ hooks: { enabled: true, token: 'a-hook-token-long-enough', presets: ['gmial', { name: 'gmail', colour: 'red' }, 'slack', { name: 'meta', secret: 'x' }] } });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], cli.io)).toBe(1);
    expect(cli.err()).toContain('hooks.presets[0]: unknown preset "gmial"');
    expect(cli.err()).toContain('hooks.presets[1].colour: unknown key');
    expect(cli.err()).toContain('hooks.presets[2].secret: required: the slack preset verifies X-Slack-Signature');
    expect(cli.err()).toContain('hooks.presets[3].verifyToken: required');
  });

  it("config check names the nearest option of the entry's own preset for a mistyped one", async () => {
    const file = configFile({ hooks: { enabled: true, token: 'a-hook-token-long-enough', mappingsDir: './none', presets: [{ name: 'stripe', secrett: 'x' }, { name: 'discord', publicKy: 'ab' }] } });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], cli.io)).toBe(1);
    expect(cli.err()).toContain('hooks.presets[0].secrett: unknown key (did you mean "secret"?)');
    expect(cli.err()).toContain('hooks.presets[1].publicKy: unknown key (did you mean "publicKey"?)');
  });

  it("config check notes a preset that mappings of yours shadow on its path, as the start does", async () => {
    const mappingsDir = path.resolve(import.meta.dirname, '../../../mappings');
    const file = configFile({ hooks: { enabled: true, token: 'a-hook-token-long-enough', mappingsDir, presets: [{ name: 'github', secret: 'a-github-secret' }] } });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], cli.io)).toBe(0);
    expect(cli.out()).toContain(`  note: hooks.presets[0] (github): path "github" is served by your mappings (${path.join(mappingsDir, 'github.yaml')})`);
  });

  it('list names the handshake presets with what they verify; show expands slack with a placeholder secret', async () => {
    const list = captureIo();
    expect(await main(['presets', 'list'], list.io)).toBe(0);
    expect(list.out()).toMatch(/^slack\s+\/slack\s+X-Slack-Signature/m);
    expect(list.out()).toMatch(/^meta\s+\/meta\s+X-Hub-Signature-256/m);
    expect(list.out()).toMatch(/^twilio\s+\/twilio\s+X-Twilio-Signature/m);
    const show = captureIo();
    expect(await main(['presets', 'show', 'slack'], show.io)).toBe(0);
    const mappings = parse(show.out()) as { id: string; auth: { secret: string } }[];
    expect(mappings[0]).toMatchObject({ id: 'slack-url-verification', auth: { type: 'slack', secret: '${SLACK_SECRET}' } });
  });
});
