import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { builtinPlugins } from '../../plugins/index.js';
import { baseConfig, tempDir } from '../helpers/start-herald.js';
import { captureIo } from './capture-io.js';
import { killLeftOver, spawnHerald, type SpawnedHerald } from './spawn-herald.js';

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  spawned = undefined;
});

function project(files: Record<string, string>): { file: string; mappings: (name: string) => string } {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  const file = path.join(dir, 'herald.json');
  fs.writeFileSync(file, JSON.stringify(baseConfig({ hooks: { mappingsDir: './mappings' } }), null, 2));
  return { file, mappings: (name) => path.join(dir, 'mappings', name) };
}

const GITHUB_UNSET =
  '- id: gh-push\n  match: { path: gh }\n  auth: { type: github, secret: "${HERALD_T_UNSET_SERVE}" }\n  action: wake\n  textTemplate: "push"\n' +
  '- id: gh-issue\n  match: { path: gh }\n  auth: { type: github, secret: "${HERALD_T_UNSET_SERVE}" }\n  messageTemplate: "issue"\n';

const JSONATA_FAULT = '- id: fine\n  match: { path: fine }\n  action: wake\n  textTemplate: "ok"\n- id: bad-one\n  match: { path: bad }\n  action: agent\n  messageTemplate: "Deployed {{ $uppercase(service }}"\n';

// the words of `herald config check` (test/cli/config-check.test.ts), at the start and in hooks send too
describe('a mapping file at fault, as serve and hooks send word it', { timeout: 90_000 }, () => {
  it('herald serve: an unset variable is one line naming every key with its line and column, no "Too small" per mapping', async () => {
    const { file, mappings } = project({ 'mappings/github.yaml': GITHUB_UNSET });
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    expect(await spawned.exited).toBe(1);
    const github = mappings('github.yaml');
    expect(spawned.stderr().trimEnd().split('\n')).toEqual([
      'herald: the configuration has faults:',
      `  environment variable HERALD_T_UNSET_SERVE is not set (used by ${github}[0].auth.secret (line 3, column 33), ${github}[1].auth.secret (line 8, column 33))`,
    ]);
  });

  it('herald hooks send: the same line', async () => {
    const { file, mappings } = project({ 'mappings/github.yaml': GITHUB_UNSET, 'push.json': '{}' });
    const cli = captureIo();
    expect(await main(['hooks', 'send', 'gh', '--fixture', path.join(path.dirname(file), 'push.json'), '--config', file], builtinPlugins, cli.io)).toBe(1);
    const github = mappings('github.yaml');
    expect(cli.err().trimEnd().split('\n')).toEqual([
      `herald hooks send: environment variable HERALD_T_UNSET_SERVE is not set (used by ${github}[0].auth.secret (line 3, column 33), ${github}[1].auth.secret (line 8, column 33))`,
    ]);
  });

  it('herald serve: a JSONata error names the mapping file, line and column', async () => {
    const { file, mappings } = project({ 'mappings/deploys.yaml': JSONATA_FAULT });
    spawned = spawnHerald(['serve', '--config', file, '--port', '0']);
    expect(await spawned.exited).toBe(1);
    const deploys = mappings('deploys.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(spawned.stderr()).toMatch(new RegExp(`mapping "bad-one" \\(${deploys}\\[1\\]\\): messageTemplate: template error in .*Expected "\\)" before end of expression \\(at \\d+\\) \\(line 8, column 20\\)`));
  });
});
