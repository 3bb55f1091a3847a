import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io/cli-io.js';
import { readDocPages, regenerateDocPages, replaceBlock } from '../../src/cli/docs.js';
import { PACKAGE_ROOT } from '../../src/utils/install-layout.js';
import { builtinPlugins, main } from '../helpers/builtins.js';
import { errorCatalog } from '../../src/errors.js';
import { tempDir } from '../helpers/start-herald.js';

const page = (file: string) => fs.readFileSync(path.join(PACKAGE_ROOT, file), 'utf8');
const quietIo = (): CliIo & { lines: string[] } => {
  const lines: string[] = [];
  return { lines, out: (l) => lines.push(l), err: (l) => lines.push(l), stdout: process.stdout, stderr: process.stderr };
};

/** the text between a generated block's markers */
function block(text: string, name: string): string {
  const start = text.indexOf(`<!-- generated:${name}:start -->`);
  const end = text.indexOf(`<!-- generated:${name}:end -->`);
  expect(start, `the page has no generated:${name} block`).toBeGreaterThanOrEqual(0);
  return text.slice(start, end);
}

describe('generated blocks of README.md and docs/', () => {
  it('are up to date (run `npm run docs` after changing the config schema, the error catalog or a plugin)', async () => {
    const current = readDocPages(PACKAGE_ROOT);
    const fresh = regenerateDocPages(current, builtinPlugins);
    for (const file of Object.keys(current)) expect(fresh[file] === current[file], `${file}: generated blocks are stale: run \`npm run docs\``).toBe(true);
    const io = quietIo();
    expect(await main(['docs', '--check'], io)).toBe(0);
  });

  it('the error table lists every code of the error catalog with its status', () => {
    const table = block(page('docs/errors.md'), 'errors');
    for (const [code, entry] of Object.entries(errorCatalog)) {
      expect(table, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${entry.status} \\|`));
    }
  });

  it('the config reference documents every core key, inside the config section of the configuration page', () => {
    const text = page('docs/configuration.md');
    const table = block(text, 'config');
    expect(text.indexOf('<!-- section:config -->')).toBeLessThan(text.indexOf('<!-- generated:config:start -->'));
    for (const key of ['gateway.auth.token', 'hooks.maxBodyBytes', 'agents.defaults.models', 'models.providers.<name>.baseUrl', 'heartbeat.every', 'storage.sqlite', 'platform.apiKeys']) {
      expect(table).toContain(`\`${key}\``);
    }
  });

  it('every key of the config reference has a description (each zod field carries .describe())', () => {
    const rows = block(page('docs/configuration.md'), 'config').split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(50);
    for (const row of rows) {
      const cells = row.split(/(?<!\\)\|/).map((c) => c.trim());
      expect(cells[4], cells[1]).not.toBe('');
    }
  });

  it('--check fails on a stale block and --write repairs it, in the page that holds it', async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, 'docs'));
    for (const [file, text] of Object.entries(readDocPages(PACKAGE_ROOT))) fs.writeFileSync(path.join(root, file), text);
    const stale = replaceBlock(page('docs/errors.md'), { section: 'errors', name: 'errors', content: '| stale |' });
    fs.writeFileSync(path.join(root, 'docs/errors.md'), stale);
    const io = quietIo();
    expect(await main(['docs', '--check', '--root', root], io)).toBe(1);
    expect(io.lines.join('\n')).toContain('docs/errors.md');
    expect(await main(['docs', '--write', '--root', root], quietIo())).toBe(0);
    expect(fs.readFileSync(path.join(root, 'docs/errors.md'), 'utf8')).toBe(page('docs/errors.md'));
    expect(await main(['docs', '--check', '--root', root], quietIo())).toBe(0);
  });

  it('names the missing section when no page holds a block', () => {
    expect(() => regenerateDocPages({ 'README.md': '# x\n' }, builtinPlugins)).toThrow(/<!-- section:config -->/);
  });

  it('adds a missing block at the end of its section, leaving other sections alone', () => {
    const text = '# x\n<!-- section:config -->\nIntro.\n<!-- section:errors -->\nErrors.\n';
    const out = replaceBlock(text, { section: 'config', name: 'config', content: '| t |' });
    expect(out).toContain('Intro.\n\n<!-- generated:config:start -->');
    expect(out).toContain('| t |\n<!-- generated:config:end -->\n\n<!-- section:errors -->\nErrors.\n');
    expect(replaceBlock(out, { section: 'config', name: 'config', content: '| t |' })).toBe(out);
  });
});
