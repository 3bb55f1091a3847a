import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { killLeftOver, spawnHerald, type SpawnedHerald } from '../cli/spawn-herald.js';
import { callInRounds, startToolCallingModel, type ToolCallingModel } from '../helpers/fake-tool-calling-model.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-server.js';
import { eventually, tempDir } from '../helpers/start-herald.js';

/**
 * docs/tools.md's worked example, as printed: its config file, its `herald serve` command and its
 * signed GitHub event, against a fake of GitHub's REST API and a fake tool-calling model. The MCP
 * server is the example's own (examples/mcp/github-issues.mjs, made with the SDK), started by herald.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = fs.readFileSync(path.join(ROOT, 'docs/tools.md'), 'utf8');
const example = doc.slice(doc.indexOf('## Worked example'));
const blocks = (lang: string) => [...example.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

let herald: SpawnedHerald | undefined;
let github: FakeServer | undefined;
let model: ToolCallingModel | undefined;
afterEach(async () => {
  await killLeftOver(herald);
  await github?.close();
  await model?.close();
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

/**
 * GitHub's REST API as documented: GET an issue (https://docs.github.com/en/rest/issues/issues#get-an-issue),
 * POST labels (https://docs.github.com/en/rest/issues/labels#add-labels-to-an-issue: 200 with the
 * issue's labels now); 401 `Bad credentials` without the token.
 */
function fakeGitHub(): Promise<FakeServer> {
  const labels: string[] = [];
  const label = (name: string, i: number) => ({ id: 1000 + i, node_id: `LA_${i}`, url: `https://api.github.com/repos/acme/app/labels/${name}`, name, description: null, color: 'ededed', default: false });
  return startFakeServer((request) => {
    if (request.headers.authorization !== 'Bearer ghp_example') return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } };
    if (request.method === 'GET' && request.path === '/repos/acme/app/issues/42') {
      return { body: { number: 42, title: 'Crash on save', body: 'The app crashes when I save.', state: 'open', labels: labels.map(label) } };
    }
    if (request.method === 'POST' && request.path === '/repos/acme/app/issues/42/labels') {
      labels.push(...(request.json.labels as string[]).filter((l) => !labels.includes(l)));
      return { body: labels.map(label) };
    }
    return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } };
  });
}

it("runs docs/tools.md's worked example as printed: a signed issue event, the issue read and labelled through the MCP server", { timeout: 120_000 }, async () => {
  const [config] = blocks('json5');
  expect(config).toBe(fs.readFileSync(path.join(ROOT, 'examples/tools/github-triage.json5'), 'utf8'));
  const [serve = '', send = ''] = blocks('sh');
  expect(serve).toBe('npx herald serve --config examples/tools/github-triage.json5\n');

  github = await fakeGitHub();
  model = await startToolCallingModel(
    callInRounds([
      [{ name: 'github__get_issue', arguments: { owner: 'acme', repo: 'app', issue_number: 42 } }],
      [{ name: 'github__add_labels', arguments: { owner: 'acme', repo: 'app', issue_number: 42, labels: ['bug'] } }],
    ]),
  );
  // the folder a user runs it from: the config copied (its database lands beside it), the server linked
  const dir = tempDir('herald-tools-example-');
  fs.mkdirSync(path.join(dir, 'examples', 'tools'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'examples/tools/github-triage.json5'), path.join(dir, 'examples/tools/github-triage.json5'));
  fs.symlinkSync(path.join(ROOT, 'examples/mcp'), path.join(dir, 'examples', 'mcp'));
  const port = await freePort();
  const env = {
    GATEWAY_TOKEN: 'gateway-token-for-the-example-0123',
    HOOK_TOKEN: 'hook-token-for-the-example-0123456',
    GITHUB_WEBHOOK_SECRET: 'webhook-secret-of-the-example',
    GITHUB_TOKEN: 'ghp_example',
    GITHUB_API_URL: github.url,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-example',
    OPENAI_MODEL: 'gpt-4.1-mini',
  };
  herald = spawnHerald([...serve.trim().split(/\s+/).slice(2), '--port', String(port)], { cwd: dir, env });
  await herald.waitFor(/herald listening on/);
  // the server's tools are listed in the background: the event waits for them as a user would
  await eventually(async () => ((await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { degraded?: unknown }).degraded === undefined || undefined);

  const sent = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', send.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`)], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  expect(sent.status, sent.stderr).toBe(0);
  const { runId } = JSON.parse(sent.stdout) as { runId: string };

  const admin = { authorization: `Bearer ${env.GATEWAY_TOKEN}` };
  const run = await eventually(async () => {
    const r = (await (await fetch(`http://127.0.0.1:${port}/admin/runs/${runId}`, { headers: admin })).json()) as Record<string, any>;
    return ['queued', 'running'].includes(r.status) ? undefined : r;
  });
  expect(run.status).toBe('succeeded');
  expect(run.reply).toBe('Done: {"title":"Crash on save","body":"The app crashes when I save.","state":"open","labels":[]} | labels now: bug');
  // the label reached GitHub, with the token, without a person: the preset verified GitHub's signature
  const posted = github.requests.filter((r) => r.method === 'POST');
  expect(posted.map((r) => [r.path, r.json])).toEqual([['/repos/acme/app/issues/42/labels', { labels: ['bug'] }]]);
  expect(run.toolCalls.map((c: any) => [c.server, c.tool, c.status, c.approvalRequired])).toEqual([
    ['github', 'get_issue', 'succeeded', false],
    ['github', 'add_labels', 'succeeded', false],
  ]);
  // the model saw the instructions and was offered the server's tools by their names
  expect(model.requests[0].tools.map((t: any) => t.function.name).sort()).toEqual(['github__add_labels', 'github__get_issue']);
});
