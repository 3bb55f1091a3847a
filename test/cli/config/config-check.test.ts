import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/cli/io/cli-io.js';
import { main } from '../../../src/cli/main.js';
import { builtinPlugins } from '../../../plugins/index.js';
import { baseConfig, tempDir } from '../../helpers/start-herald.js';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), stdout: process.stdout, stderr: process.stderr };
  return { io, out: () => out.join('\n'), err: () => err.join('\n') };
}

function project(config: unknown, files: Record<string, string> = {}): string {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const file = path.join(dir, 'herald.json5');
  fs.writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return file;
}

describe('herald config check', () => {
  it('reports every fault in one pass: a plugin that cannot load hides nothing; each unset variable once; nearest keys', async () => {
    const file = project(
      `{
        gateway: { prot: 8787, auth: { token: "\${HERALD_T_GW}" } },
        hooks: { enabled: true, token: "\${HERALD_T_HOOK}", mappings: [
          { id: "broken", match: { path: "b" }, transform: { module: "broken.mjs" } },
          { id: "signed", match: { path: "s" }, action: "wake", textTemplate: "x", auth: { type: "github", secret: "\${HERALD_T_HOOK}" } },
        ] },
        agents: { defults: {} },
        plugins: ["./missing-plugin.js"],
        heartbeat: { every: "sometimes" },
      }`,
      { 'transforms/broken.mjs': 'export default function (ctx) {\n  return { message: "x" + };\n}\n' },
    );
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    const text = cli.err();
    expect(text).toContain(`${file}: 7 faults`);
    expect(text).toMatch(/plugins: cannot load "\.\/missing-plugin\.js"/);
    expect(text).toContain('environment variable HERALD_T_GW is not set (used by gateway.auth.token)');
    expect(text).toContain('environment variable HERALD_T_HOOK is not set (used by hooks.token, hooks.mappings[1].auth.secret)');
    expect(text.match(/HERALD_T_HOOK/g)).toHaveLength(1);
    expect(text).toContain('gateway.prot: unknown key (did you mean "port"?)');
    expect(text).toContain('agents.defults: unknown key (did you mean "defaults"?)');
    expect(text).toMatch(/heartbeat\.every: a duration/);
    // the mappings are checked too, and a transform's syntax error names file, line and column
    expect(text).toContain(`mapping "broken" (hooks.mappings[0]): transform: ${path.join(path.dirname(file), 'transforms', 'broken.mjs')}:2:27: Unexpected "}"`);
    // the placeholders do not outlive the command
    expect(process.env.HERALD_T_HOOK).toBeUndefined();
  });

  it('warns about what will fail later, and still says ok (exit 0)', async () => {
    const file = project(
      baseConfig({
        hooks: {
          mappings: [{ id: 'to-telegram', match: { path: 'tg' }, messageTemplate: 'x', channel: 'telegram', to: '42', fallback: [{ channel: 'slack', to: 'C1' }] }],
          gmail: { account: 'me@example.com' },
        },
        models: { providers: { local: { api: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' } } },
        agents: { list: [{ id: 'main', model: 'local/llama3', fallback: [{ channel: 'pager' }] }] },
      }),
    );
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(0);
    expect(cli.out()).toMatch(new RegExp(`^${file}: ok \\(5 warnings\\)`));
    expect(cli.out()).toContain('warning: mapping "to-telegram" (hooks.mappings[0]): fallback[0].channel "slack" is not configured (no channels.slack section): that fallback will fail');
    expect(cli.out()).toContain('warning: agents.list[0] ("main"): fallback[0].channel "pager" is not a channel plugin: that fallback will fail');
    expect(cli.out()).toContain('warning: mapping "to-telegram" (hooks.mappings[0]): channel "telegram" is not configured (no channels.telegram section)');
    expect(cli.out()).toContain('warning: hooks.gmail.account: "me@example.com" is watched but hooks.gmail.oauth');
    expect(cli.out()).toContain('warning: models.providers.local.apiKey: not set, and agents.list[0].model uses "local/llama3"');
  });

  it('a TypeScript transform with a syntax error is named by file:line:column too', async () => {
    const file = project(baseConfig({ hooks: { mappings: [{ id: 'ts', match: { path: 't' }, transform: { module: 'bad.ts' } }] } }), {
      'transforms/bad.ts': 'export default function (ctx: unknown) {\n  const x: number = ;\n  return x;\n}\n',
    });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    expect(cli.err()).toContain(`transform: ${path.join(path.dirname(file), 'transforms', 'bad.ts')}:2:21: Unexpected ";"`);
  });
});

describe('herald config check of a mapping file', () => {
  it('names the line and column of the field at fault in a mapping file (a JSONata error)', async () => {
    const file = project(baseConfig({ hooks: { mappingsDir: './mappings' } }), {
      'mappings/deploys.yaml': '- id: fine\n  match: { path: fine }\n  action: wake\n  textTemplate: "ok"\n- id: bad-one\n  match: { path: bad }\n  action: agent\n  messageTemplate: "Deployed {{ $uppercase(service }}"\n',
    });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    const mappings = path.join(path.dirname(file), 'mappings', 'deploys.yaml');
    expect(cli.err()).toMatch(new RegExp(`mapping "bad-one" \\(${mappings.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\[1\\]\\): messageTemplate: template error in .*Expected "\\)" before end of expression \\(at \\d+\\) \\(line 8, column 20\\)`));
  });

  it("an unset variable of a mapping file is one fault naming every key that uses it, not one per mapping plus what its empty value broke", async () => {
    const file = project(baseConfig({ hooks: { mappingsDir: './mappings' } }), {
      'mappings/github.yaml':
        '- id: gh-push\n  match: { path: gh }\n  auth: { type: github, secret: "${HERALD_T_UNSET_GH}" }\n  action: wake\n  textTemplate: "push"\n' +
        '- id: gh-issue\n  match: { path: gh }\n  auth: { type: github, secret: "${HERALD_T_UNSET_GH}" }\n  messageTemplate: "issue"\n',
    });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    const mappings = path.join(path.dirname(file), 'mappings', 'github.yaml');
    expect(cli.err().split('\n')).toEqual([
      `${file}: 1 fault`,
      `  environment variable HERALD_T_UNSET_GH is not set (used by ${mappings}[0].auth.secret (line 3, column 33), ${mappings}[1].auth.secret (line 8, column 33))`,
    ]);
  });
});

describe('herald hooks test with unset variables', () => {
  it('runs the dry run with placeholders and names the variables that were missing', async () => {
    const file = project(
      {
        ...baseConfig({ gateway: { auth: { token: '${HERALD_T_PROD_GW}' } }, hooks: { token: '${HERALD_T_PROD_HOOK}' } }),
      },
      {
        'mappings/deploys.yaml': 'id: deploys\nmatch: { path: deploys }\naction: wake\nauth: { type: github, secret: "${HERALD_T_PROD_GH}" }\ntextTemplate: "Deployed {{service}}"\n',
        'payload.json': '{"service":"api"}',
      },
    );
    const cli = captureIo();
    const code = await main(['hooks', 'test', 'deploys', '--payload', path.join(path.dirname(file), 'payload.json'), '--config', file], builtinPlugins, cli.io);
    expect(code, cli.err()).toBe(0);
    expect(JSON.parse(cli.out())).toEqual({ kind: 'wake', text: 'Deployed api', mode: 'now' });
    expect(cli.err()).toContain('not set, replaced by placeholders for this dry run: HERALD_T_PROD_GW, HERALD_T_PROD_HOOK, HERALD_T_PROD_GH');
    expect(process.env.HERALD_T_PROD_GH).toBeUndefined();
  });

  it('names the line and column of a syntax error in the config file', async () => {
    const file = project('{\n  gateway: { port: 1 }\n  hooks: {}\n}\n');
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    expect(cli.err()).toBe(`${file}: 1 fault\n  not valid JSON5: invalid character 'h' (line 3, column 3)`);
  });

  it('names a missing config file and says how to create one', async () => {
    const file = path.join(tempDir(), 'nowhere.json5');
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    expect(cli.err()).toContain(file);
    expect(cli.err()).toContain(`no such config file. Create one: \`herald serve --config ${file}\` writes a starter config there`);
  });

  it('names an alert target whose channel is unknown or not configured, with the mapping faults of the same pass', async () => {
    const file = project({
      ...baseConfig({ hooks: { mappings: [{ id: 'bad', match: { path: 'b' }, messageTemplate: '{{ (' }] } }),
      alerts: { targets: [{ channel: 'fax', to: '1' }, { channel: 'telegram', to: '-100123' }], rules: [{ on: 'delivery.failed' }] },
    });
    const cli = captureIo();
    expect(await main(['config', 'check', '--config', file], builtinPlugins, cli.io)).toBe(1);
    expect(cli.err()).toContain('alerts.targets[0].channel: no channel plugin is named "fax"');
    expect(cli.err()).toContain('alerts.targets[1].channel: telegram is not configured (add channels.telegram)');
    expect(cli.err()).toMatch(/mapping "bad"/);
  });
});
