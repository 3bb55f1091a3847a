import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pluginDocBlocks, readGeneratedBlock } from '../../src/plugin-host/plugin-docs.js';
import { builtinPlugins } from '../helpers/builtins.js';

const channels = fs.readFileSync(new URL('../../docs/channels.md', import.meta.url), 'utf8');
const gmailPage = fs.readFileSync(new URL('../../docs/gmail.md', import.meta.url), 'utf8');
const presetsPage = fs.readFileSync(new URL('../../docs/presets.md', import.meta.url), 'utf8');

describe('the plugins\' sections of the docs', () => {
  it('has a generated block per built-in channel, matching its manifest (run `npm run docs` when this fails)', async () => {
    const blocks = pluginDocBlocks(builtinPlugins);
    expect(blocks.filter((b) => b.name.startsWith('channel:')).map((b) => b.name.replace('channel:', '')).sort()).toEqual(
      ['discord', 'imessage', 'mattermost', 'msteams', 'signal', 'slack', 'telegram', 'webhook', 'whatsapp'],
    );
    for (const block of blocks) expect(readGeneratedBlock(block.name === 'preset:gmail' ? gmailPage : block.name.startsWith('preset:') ? presetsPage : channels, block.name), block.name).toBe(block.content.trim());
  });

  it('has the table of what each platform guarantees, one row per built-in channel', async () => {
    const table = readGeneratedBlock(channels, 'channel-guarantees')!;
    for (const id of ['telegram', 'slack', 'discord', 'mattermost', 'signal', 'imessage', 'msteams', 'whatsapp', 'webhook']) expect(table).toContain(`| ${id} |`);
  });

  it("documents each preset's config in its own section (gmail)", async () => {
    const gmail = pluginDocBlocks(builtinPlugins).find((b) => b.name === 'preset:gmail')!;
    expect(gmail.content).toContain('`hooks.gmail`');
    const start = gmailPage.indexOf('<!-- section:gmail -->');
    expect(start).toBeGreaterThanOrEqual(0);
    expect(gmailPage.slice(start)).toContain('<!-- generated:preset:gmail:start -->');
    expect(readGeneratedBlock(gmailPage, 'preset:gmail')).toBe(gmail.content.trim());
  });

  it('puts every channel block inside the channels section of the channels page', () => {
    const start = channels.indexOf('<!-- section:channels -->');
    const next = channels.indexOf('<!-- section:', start + 1);
    const section = channels.slice(start, next < 0 ? undefined : next);
    for (const id of ['telegram', 'webhook']) expect(section).toContain(`<!-- generated:channel:${id}:start -->`);
  });
});
