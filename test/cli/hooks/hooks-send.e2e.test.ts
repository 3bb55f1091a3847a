import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { builtinPlugins } from '../../../plugins/index.js';
import { baseConfig, eventually, GATEWAY_TOKEN, startHerald, tempDir, type RunningHerald } from '../../helpers/start-herald.js';
import { captureIo } from '../capture-io.js';

let herald: RunningHerald | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

const GITHUB_SECRET = 'a-github-webhook-secret-for-tests';

async function runOf(id: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const res = await fetch(`${herald!.url}/admin/runs/${id}`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    return res.status === 200 ? ((await res.json()) as Record<string, any>) : undefined;
  });
}

describe('herald presets send / hooks send', () => {
  it("signs a preset's fixture with the configured secret, sends it to the running gateway, prints the answer and the run's link", async () => {
    herald = await startHerald(baseConfig({ hooks: { presets: [{ name: 'github', secret: GITHUB_SECRET }] } }));
    const { io, out, err } = captureIo();
    const code = await main(['presets', 'send', 'github', 'issues.opened', '--config', herald.configFile, '--url', herald.url], builtinPlugins, io);
    expect(code, err()).toBe(0);
    expect(err()).toContain('signed as github');
    expect(out()).toMatch(/^202 \{"ok":true,"runId":"[^"]+"\}\n/);
    const runId = /"runId":"([^"]+)"/.exec(out())![1]!;
    expect(out()).toContain(`run: ${herald.url}/console#/runs/${runId}`);
    const run = await runOf(runId);
    expect(run.action.message).toContain('Spelling error in the README file');

    // the same path by its fixture name through `hooks send`: the delivery id is the fixture's, so the first answer comes back
    const again = captureIo();
    expect(await main(['hooks', 'send', 'github', '--fixture', 'issues.opened', '--config', herald.configFile, '--url', herald.url], builtinPlugins, again.io)).toBe(0);
    expect(again.err()).toContain('replayed');
    expect(again.out()).toContain(runId);
  });

  it('sends a fixture file to a mapping of yours, signed with its auth secret, and says what it cannot sign', async () => {
    const mapping = { id: 'acme', match: { path: 'acme' }, auth: { type: 'hmac-sha256', header: 'x-acme-signature', secret: 'acme-signing-secret' }, messageTemplate: 'Acme {{type}}', deliver: false };
    herald = await startHerald(baseConfig({ hooks: { mappings: [mapping, { id: 'mail', match: { path: 'mail' }, auth: { type: 'mailgun', secret: 'k' }, messageTemplate: 'x' }] } }));
    const file = path.join(herald.dir, 'acme-event.json');
    fs.writeFileSync(file, JSON.stringify({ type: 'invoice.paid' }));
    const { io, out, err } = captureIo();
    expect(await main(['hooks', 'send', 'acme', '--fixture', file, '--config', herald.configFile, '--url', herald.url], builtinPlugins, io), err()).toBe(0);
    const run = await runOf(/"runId":"([^"]+)"/.exec(out())![1]!);
    expect(run.action.message).toBe('Acme invoice.paid');

    const mail = captureIo();
    expect(await main(['hooks', 'send', 'mail', '--fixture', file, '--config', herald.configFile, '--url', herald.url], builtinPlugins, mail.io)).toBe(1);
    expect(mail.err()).toContain("a mailgun signature is made with the sender's own keys or over more than the body");
    const none = captureIo();
    expect(await main(['hooks', 'send', 'nowhere', '--fixture', file, '--config', herald.configFile, '--url', herald.url], builtinPlugins, none.io)).toBe(1);
    expect(none.err()).toMatch(/no mapping serves the path "nowhere" \(paths: acme, mail\)/);
  });
});

describe('herald hooks test --fixtures', () => {
  it("refuses to send a preset's fixture to the mappings of yours that shadow the preset on its path", async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'mappings'));
    fs.writeFileSync(path.join(dir, 'mappings', 'github.yaml'), 'id: my-github\nmatch: { path: github }\nmessageTemplate: "GitHub {{ action }}"\n');
    const file = path.join(dir, 'herald.json');
    fs.writeFileSync(file, JSON.stringify(baseConfig({ hooks: { mappingsDir: './mappings', presets: [{ name: 'github', secret: GITHUB_SECRET }] } })));
    const { io, err } = captureIo();
    // nothing listens on the URL: the refusal comes before any request
    expect(await main(['presets', 'send', 'github', 'issues.opened', '--config', file, '--url', 'http://127.0.0.1:9'], builtinPlugins, io)).toBe(1);
    expect(err()).toContain(`herald presets send: the github preset does not answer "github": your mappings (${path.join(dir, 'mappings', 'github.yaml')}) shadow it there.`);
  });

  it('prints what happened beside what was expected', async () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'herald-fixtures-'));
    fs.writeFileSync(path.join(dir, 'herald.json'), JSON.stringify(baseConfig({ hooks: { mappingsDir: path.join(dir, 'mappings') } })));
    fs.mkdirSync(path.join(dir, 'mappings'));
    fs.writeFileSync(path.join(dir, 'mappings', 'shop.yaml'), '- id: shop-skip\n  match: { path: shop, when: type = "ping" }\n  action: skip\n- id: shop\n  match: { path: shop }\n  messageTemplate: "Order {{id}}"\n');
    const fixtures = path.join(dir, 'mappings', 'shop.test.json');
    fs.writeFileSync(fixtures, JSON.stringify([{ name: 'a ping', payload: { type: 'ping' }, expect: { message: 'Order ping' } }]));
    const { io, out } = captureIo();
    expect(await main(['hooks', 'test', '--fixtures', fixtures, '--config', path.join(dir, 'herald.json')], builtinPlugins, io)).toBe(1);
    expect(out()).toContain('FAIL shop.test.json #1 (a ping)\n       message: expected "Order ping", got undefined\n       happened: skipped (204)\n');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
