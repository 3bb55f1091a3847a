import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { writeStarterConfig } from '../src/config/starter-config.js';
import { spawnHerald, type SpawnedHerald } from './cli/spawn-herald.js';
import { tempDir } from './helpers/start-herald.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Blocks not run here, each with the reason; any other ```sh block of README.md or docs/*.md must run as printed. */
const NOT_RUN: [RegExp, string][] = [
  [/^npm install\nnpm start/, 'installs and starts the gateway: the test starts `herald serve` on the starter config itself, as `npm start` does'],
  [/^npm install\nnpm test/, 'installs and runs the whole suite, of which this test is a part'],
  [/^herald hooks test github --payload issue\.json/, 'a synopsis ([--query K=V ...] marks optional parts), not a command'],
  [/^export GOOGLE_CLIENT_ID=/, 'needs a Google Cloud project and OAuth credentials'],
  [/\/admin\/deliveries\/\$DELIVERY_ID\/retry/, 'needs a failed delivery that has a target (a configured channel)'],
  [/^HERALD_LOG_LEVEL=debug npx herald serve/, 'starts a second gateway in the foreground'],
  [/^npx herald serve --config examples\/tools\/github-triage\.json5/, 'needs a model provider and a GitHub token: test/tools/worked-example.e2e.test.ts runs it as printed against fakes of both'],
  [/^body='\{"action":"opened","issue"/, "the worked example's signed event: test/tools/worked-example.e2e.test.ts sends it as printed"],
  [/\/admin\/approvals\/\$CALL_ID\/deny/, 'needs a run paused for approval (a model that calls tools): test/http/admin/approvals.e2e.test.ts decides calls through this route'],
  [/^herald cron add --name "Morning brief"/, 'its ids are made at random and it delivers to Slack: test/cli/admin/cron.e2e.test.ts runs every subcommand against a spawned herald serve'],
  [/^npx herald tools authorize crm\n$/, 'needs an MCP server that asks for OAuth: test/cli/admin/tools-authorize.e2e.test.ts runs it as printed against one (the SDK\'s server auth)'],
  [/^\s*docker build/, 'needs a Docker daemon (none on this machine)'],
  [/^export DATABASE_URL=postgres:\/\/postgres@127\.0\.0\.1:5432\/test\ncat > replicas\.json/, 'starts three more gateways in the background on fixed ports (8801-8803); the replica tests run them'],
];

let spawned: SpawnedHerald | undefined;
afterEach(async () => {
  if (spawned && spawned.child.exitCode === null) {
    spawned.child.kill('SIGTERM');
    await spawned.exited;
  }
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

/** one page's shell examples, in order */
function shellBlocks(file: string): { file: string; line: number; text: string }[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)].map((m) => ({
    file,
    line: text.slice(0, m.index).split('\n').length,
    text: m[1]!.replace(/^ {2}/gm, ''),
  }));
}

/**
 * README.md, then the docs pages in the order its map of the docs lists them (a reader's order:
 * later examples may use what earlier ones made, such as `$RUN_ID`), then any page it does not list.
 */
function docPagesInReadingOrder(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const linked = [...readme.matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map((m) => m[1]!);
  const all = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`).sort();
  return ['README.md', ...new Set([...linked.filter((f) => all.includes(f)), ...all])];
}

describe('shell examples of README.md and docs/', () => {
  it('run as printed against a gateway started on the starter config', { timeout: 300_000 }, async () => {
    const blocks = docPagesInReadingOrder().flatMap(shellBlocks);
    const skipped = blocks.filter((b) => NOT_RUN.some(([pattern]) => pattern.test(b.text)));
    // every reason still matches a block: a README change cannot silently leave the list stale
    for (const [pattern] of NOT_RUN) expect(blocks.some((b) => pattern.test(b.text)), String(pattern)).toBe(true);

    // the starter config, as the first `npm start` writes it; only the port moves off 8787 (it may be taken here)
    const dir = tempDir('herald-readme-');
    const config = path.join(dir, 'herald.json5');
    const secrets = writeStarterConfig(config);
    const port = await freePort();
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace(/port: 8787/, `port: ${port}`));
    // the folder a user runs the commands from: the repository's example files, its live example
    // mappings and transforms, and `npx herald` resolving to this checkout
    for (const folder of ['examples', 'mappings']) fs.symlinkSync(path.join(ROOT, folder), path.join(dir, folder));
    // copied, not linked: a transforms folder linking out of the config's folder refuses the start
    fs.cpSync(path.join(ROOT, 'transforms'), path.join(dir, 'transforms'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
    fs.symlinkSync(path.join(ROOT, 'bin', 'herald.mjs'), path.join(dir, 'node_modules', '.bin', 'herald'));
    // curl fails on an HTTP error status, so a 401 or 404 fails the block instead of printing JSON
    fs.mkdirSync(path.join(dir, 'shims'));
    fs.writeFileSync(path.join(dir, 'shims', 'curl'), `#!/bin/sh\nexec ${spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim()} --fail-with-body "$@"\n`, { mode: 0o755 });

    spawned = spawnHerald(['serve'], { cwd: dir });
    await spawned.waitFor(/herald listening on/);

    // the examples' scratch files go to the temporary folder, never into the folder a user runs them from
    const scratch = tempDir('herald-readme-tmp-');
    const env: Record<string, string> = {
      TMPDIR: scratch,
      PATH: `${path.join(dir, 'shims')}:${process.env.PATH}`,
      HOME: process.env.HOME ?? dir,
      HOOK_TOKEN: secrets.hookToken,
      GATEWAY_TOKEN: secrets.gatewayToken,
      HERALD_API_KEY: secrets.apiKey,
      npm_config_yes: 'false',
    };
    let ran = 0;
    for (const block of blocks) {
      if (skipped.includes(block)) continue;
      const script = block.text.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`);
      const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, `${block.file} line ${block.line}:\n${block.text}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      // `$RUN_ID` in later examples stands for a run id an earlier one printed
      const runId = /"runId":"([^"]+)"/.exec(run.stdout)?.[1];
      if (runId) env.RUN_ID = runId;
      ran++;
    }
    expect(ran).toBeGreaterThanOrEqual(10);
    expect(fs.existsSync(path.join(dir, 'herald-openapi.json'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'alert.json'))).toBe(false);
    expect(fs.existsSync(path.join(scratch, 'herald-alert.json'))).toBe(true);
  });
});
