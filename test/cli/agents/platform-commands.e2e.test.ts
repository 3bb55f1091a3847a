import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { captureIo } from '../capture-io.js';
import { main } from '../../helpers/builtins.js';
import { baseConfig } from '../../helpers/start-herald.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';

let herald: TestApp | undefined;
afterEach(async () => herald?.stop());

const config = () => baseConfig({ agents: { list: [{ id: 'support', name: 'Support desk' }, { id: 'sales' }] } });

describe('herald keys commands against a running gateway', () => {
  it('keys create prints a key once, stores only its hash, and the running gateway accepts it', async () => {
    herald = await testApp(config());
    const cli = captureIo();
    expect(await main(['keys', 'create', '--name', 'ci', '--agents', 'sales', '--config', herald.configFile], cli.io)).toBe(0);
    const key = cli.out().trim();
    expect(key).toMatch(/^hsk_[A-Za-z0-9_-]{40,}$/);
    expect(cli.err()).toMatch(/shown only this once/);

    const client = new OpenAI({ baseURL: `${herald.origin}/v1`, fetch: herald.fetch, apiKey: key, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['sales']);
    await expect(client.chat.completions.create({ model: 'support', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);

    const db = fs.readFileSync(path.join(herald.dir, 'data', 'herald.db'));
    const wal = fs.existsSync(path.join(herald.dir, 'data', 'herald.db-wal')) ? fs.readFileSync(path.join(herald.dir, 'data', 'herald.db-wal')) : Buffer.alloc(0);
    expect(db.includes(key) || wal.includes(key)).toBe(false);

    const dup = captureIo();
    expect(await main(['keys', 'create', '--name', 'ci', '--config', herald.configFile], dup.io)).toBe(1);
    expect(dup.err()).toMatch(/an API key named "ci" exists/);
    const bad = captureIo();
    expect(await main(['keys', 'create', '--name', 'x', '--agents', 'nobody', '--config', herald.configFile], bad.io)).toBe(1);
    expect(bad.err()).toMatch(/agents: no agent "nobody" \(known: support, sales\)/);
    const badName = captureIo();
    expect(await main(['keys', 'create', '--name', 'has space', '--config', herald.configFile], badName.io)).toBe(1);
    expect(badName.err()).toMatch(/name: must be 1-64 letters/);
    const noName = captureIo();
    expect(await main(['keys', 'create', '--config', herald.configFile], noName.io)).toBe(2);
    expect(noName.err()).toMatch(/--name is missing/);

    const list = captureIo();
    expect(await main(['keys', 'list', '--config', herald.configFile], list.io)).toBe(0);
    // a header row, then one row per key in the same columns, as herald requests list prints its
    const [header, ...rows] = list.out().trimEnd().split('\n');
    expect(header).toMatch(/^NAME +SOURCE +AGENTS +CREATED$/);
    expect(rows.map((r) => r.split(/ {2,}/))).toEqual([
      ['test', 'config', '*', '-'],
      ['ci', 'store', 'sales', expect.stringMatching(/^\d{4}-\d\d-\d\dT/)],
    ]);
    expect(rows[1]!.indexOf('store')).toBe(header!.indexOf('SOURCE'));
    expect(list.out()).not.toContain(key);

    expect(await main(['keys', 'revoke', '--name', 'ci', '--config', herald.configFile], captureIo().io)).toBe(0);
    await expect(client.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
