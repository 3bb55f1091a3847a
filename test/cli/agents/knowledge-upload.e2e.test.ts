import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureIo } from '../capture-io.js';
import { main } from '../../../src/cli/main.js';
import { builtinPlugins } from '../../../plugins/index.js';
import { API_KEY, baseConfig, startHerald, tempDir, type RunningHerald } from '../../helpers/start-herald.js';
import { spawnHerald } from '../spawn-herald.js';

let herald: RunningHerald | undefined;
afterEach(async () => herald?.stop());

describe('herald knowledge upload', () => {
  it('sends files to the gateway with a line per file; agents list shows the counts', async () => {
    herald = await startHerald(baseConfig({ agents: { list: [{ id: 'support', name: 'Support desk' }, { id: 'sales' }] } }));
    const good = path.join(herald.dir, 'faq.md');
    const binary = path.join(herald.dir, 'logo.png');
    fs.writeFileSync(good, '# FAQ\n\nThe support line is open from 9 to 17.');
    fs.writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    const cli = captureIo();
    const code = await main(['knowledge', 'upload', '--agent', 'support', '--url', herald.url, '--api-key', API_KEY, good, binary, path.join(herald.dir, 'missing.txt')], builtinPlugins, cli.io);
    expect(code).toBe(1);
    const lines = cli.out().trim().split('\n');
    expect(lines[0]).toMatch(/^faq\.md: 1 chunk, doc_\w+ \(added\)$/);
    expect(lines[1]).toMatch(/^logo\.png: error 415 unsupported_file_type/);
    expect(lines[2]).toMatch(/^missing\.txt: no such file/);
    expect(cli.err()).toMatch(/\[#+\.*\] 3\/3 files/);

    const again = captureIo();
    expect(await main(['knowledge', 'upload', '--agent', 'support', '--url', herald.url, '--api-key', API_KEY, good], builtinPlugins, again.io)).toBe(0);
    expect(again.out()).toMatch(/already there/);

    const agents = captureIo();
    expect(await main(['agents', 'list', '--config', herald.configFile], builtinPlugins, agents.io)).toBe(0);
    expect(agents.out()).toMatch(/support\s+Support desk\s+embedded\/extractive\s+1/);
    expect(agents.out()).toMatch(/sales\s+sales\s+embedded\/extractive\s+0/);
  });

  it("reports the server's answer for a file over the limit (413), not a broken pipe, and counts files done", async () => {
    herald = await startHerald(baseConfig({ platform: { maxUploadBytes: 1024 } }));
    const small = path.join(herald.dir, 'small.md');
    const big = path.join(herald.dir, 'big.txt');
    fs.writeFileSync(small, '# Handbook\n\nHolidays: 25 days a year.\n');
    // far over the limit: the server answers 413 from the declared length and closes while the CLI still writes
    fs.writeFileSync(big, 'x'.repeat(8 * 1024 * 1024));
    const cli = captureIo();
    const code = await main(['knowledge', 'upload', '--agent', 'main', '--url', herald.url, '--api-key', API_KEY, small, big], builtinPlugins, cli.io);
    expect(code).toBe(1);
    expect(cli.out()).toMatch(/^small\.md: 1 chunk, \S+ \(added\)$/m);
    expect(cli.out()).toMatch(/^big\.txt: error 413 file_too_large: The file is larger than the upload limit of 1024 bytes\.$/m);
    expect(cli.out()).not.toMatch(/EPIPE|cannot reach/);
    // progress counts files, not bytes
    expect(cli.err()).toContain('0/2 files done');
    expect(cli.err()).toContain('1/2 files done');
    expect(cli.err()).toContain('2/2 files done, 1 failed');
    expect(cli.err()).toContain('1 uploaded, 1 failed');
  });

  it('says plainly when no gateway answers', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.md'), 'hello');
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const cli = captureIo();
    expect(await main(['knowledge', 'upload', '--agent', 'main', '--url', `http://127.0.0.1:${port}`, '--api-key', API_KEY, path.join(dir, 'a.md')], builtinPlugins, cli.io)).toBe(1);
    expect(cli.out()).toMatch(new RegExp(`a\\.md: cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED`));
  });
});

describe('herald serve, first start on a taken port', () => {
  it('shows the generated secrets although it cannot listen', { timeout: 90_000 }, async () => {
    const blocker = net.createServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as net.AddressInfo).port)));
    try {
      const file = path.join(tempDir(), 'herald.json5');
      const spawned = spawnHerald(['serve', '--config', file, '--port', String(port)]);
      expect(await spawned.exited).toBe(1);
      expect(spawned.stderr()).toMatch(/already in use/);
      const token = spawned.stderr().match(/export HOOK_TOKEN=(\S+)/)?.[1];
      expect(token).toBeDefined();
      expect(fs.readFileSync(file, 'utf8')).toContain(token!);
      expect(spawned.stdout()).not.toContain(token!);
    } finally {
      blocker.close();
    }
  });
});
