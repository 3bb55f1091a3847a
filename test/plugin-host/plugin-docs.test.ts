import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pluginDocBlocks, readGeneratedBlock } from '../../src/plugin-host/plugin-docs.js';
import { builtinPlugins } from '../helpers/builtins.js';

const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README plugin sections', () => {
  it('has a generated block per built-in channel, matching its manifest (run `npm run docs` when this fails)', async () => {
    const blocks = pluginDocBlocks(builtinPlugins);
    expect(blocks.filter((b) => b.name.startsWith('channel:')).map((b) => b.name.replace('channel:', '')).sort()).toEqual(
      ['discord', 'imessage', 'mattermost', 'msteams', 'signal', 'slack', 'telegram', 'webhook', 'whatsapp'],
    );
    for (const block of blocks) expect(readGeneratedBlock(readme, block.name), block.name).toBe(block.content.trim());
  });

  it('has the table of what each platform guarantees, one row per built-in channel', async () => {
    const table = readGeneratedBlock(readme, 'channel-guarantees')!;
    for (const id of ['telegram', 'slack', 'discord', 'mattermost', 'signal', 'imessage', 'msteams', 'whatsapp', 'webhook']) expect(table).toContain(`| ${id} |`);
  });

  it("documents each preset's config in its own section (gmail)", async () => {
    const gmail = pluginDocBlocks(builtinPlugins).find((b) => b.name === 'preset:gmail')!;
    expect(gmail.content).toContain('`hooks.gmail`');
    const start = readme.indexOf('<!-- section:gmail -->');
    const next = readme.indexOf('<!-- section:', start + 1);
    expect(readme.slice(start, next)).toContain('<!-- generated:preset:gmail:start -->');
    expect(readGeneratedBlock(readme, 'preset:gmail')).toBe(gmail.content.trim());
  });

  it('puts every channel block inside the channels section', () => {
    const start = readme.indexOf('<!-- section:channels -->');
    const next = readme.indexOf('<!-- section:', start + 1);
    const section = readme.slice(start, next < 0 ? undefined : next);
    for (const id of ['telegram', 'webhook']) expect(section).toContain(`<!-- generated:channel:${id}:start -->`);
  });
});
