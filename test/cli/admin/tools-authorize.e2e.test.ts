import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_TOKEN, baseConfig, eventually, tempDir } from '../../helpers/start-herald.js';
import { freePort } from '../../helpers/free-port.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../../bench/oauth-mcp-server.js';
import { BIN, killLeftOver, spawnHerald, type SpawnedHerald } from '../spawn-herald.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * `npx herald tools authorize NAME` as docs/tools.md prints it, against a spawned `herald serve`
 * whose MCP server asks for OAuth (the SDK's server auth, oauth-mcp-server.ts): it prints the
 * authorization URL; the browser's part (following the redirects back to herald's callback, the
 * demo consent being immediate) connects the server. Its errors name the server.
 */
let spawned: SpawnedHerald | undefined;
let server: OAuthMcpServer | undefined;
afterEach(async () => {
  await killLeftOver(spawned);
  await server?.close();
  spawned = server = undefined;
});

/** the docs' example, as printed (the readme examples test leaves it to this file) */
function docsBlock(): string {
  const text = fs.readFileSync(path.join(ROOT, 'docs/tools.md'), 'utf8');
  const block = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.startsWith('npx herald tools authorize'));
  if (!block) throw new Error('docs/tools.md has no `npx herald tools authorize` example');
  return block;
}

describe('herald tools authorize', () => {
  it('prints the URL to sign in with, as the docs run it; the browser coming back connects the server', { timeout: 120_000 }, async () => {
    server = await startOAuthMcpServer();
    const dir = tempDir('herald-authorize-');
    const port = await freePort();
    const config = baseConfig({
      gateway: { port },
      tools: { oauth: { encryptionKey: 'cli-sign-in-key-0123456789abcdef' }, mcpServers: { crm: { url: server.url }, local: { command: 'herald-no-such-mcp-server' } } },
      storage: { sqlite: './data/herald.db' },
    });
    fs.writeFileSync(path.join(dir, 'herald.json5'), JSON.stringify(config));
    // `npx herald` resolves to this checkout, as in the folder a user runs the docs from
    fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
    fs.symlinkSync(BIN, path.join(dir, 'node_modules', '.bin', 'herald'));
    spawned = spawnHerald(['serve'], { cwd: dir });
    const base = (await spawned.waitFor(/herald listening on (http:\/\/\S+)/))[1]!;
    const overview = async () => (await (await fetch(`${base}/admin/overview`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).json()) as { toolServers: { server: string; state: string }[] };
    const crm = async () => (await overview()).toolServers.find((s) => s.server === 'crm')?.state;
    await eventually(async () => (await crm()) === 'needs_authorization', 30_000, 200);

    const run = (script: string) => spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, env: { ...process.env, HERALD_CONFIG: undefined, npm_config_yes: 'false' }, encoding: 'utf8', timeout: 60_000 });
    const printed = run(docsBlock());
    expect(printed.status, printed.stderr).toBe(0);
    const url = new URL(printed.stdout.trim());
    expect(url.origin + url.pathname).toBe(new URL('/authorize', server.url).href);
    expect(url.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/oauth/callback`);
    expect(printed.stderr).toContain('Open this URL in a browser and sign in to crm');
    expect(printed.stderr).toContain('/oauth/callback');

    // the person's browser: the authorization server's consent redirects to herald's callback
    let at = url.href;
    let page!: Response;
    for (let hops = 0; hops < 5; hops++) {
      page = await fetch(at, { redirect: 'manual' });
      const location = page.headers.get('location');
      if (!location) break;
      at = new URL(location, at).href;
    }
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in to crm');
    await eventually(async () => (await crm()) === 'ready', 30_000, 200);

    // errors name the server
    const unknown = run('npx herald tools authorize nope');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^herald tools authorize nope: 404 .*nope/m);
    const stdio = run('npx herald tools authorize local');
    expect(stdio.status).toBe(1);
    expect(stdio.stderr).toMatch(/^herald tools authorize local: 409 the server local runs over stdio/m);
    expect(stdio.stdout).toBe('');
  });
});
