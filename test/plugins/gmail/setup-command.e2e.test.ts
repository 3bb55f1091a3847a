import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import JSON5 from 'json5';
import YAML from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setupCommand } from '../../../plugins/gmail/setup/setup-command.js';
import { main } from '../../helpers/builtins.js';
import type { CliIo } from '../../../src/cli/io/cli-io.js';
import { builtinPlugins, loadConfigFile } from '../../helpers/builtins.js';
import { openCommandHost } from '../../../src/plugin-host/command-host.js';
import { tempDir } from '../../helpers/start-herald.js';
import { ACCESS_TOKEN, CLIENT_ID, CLIENT_SECRET, FakeGoogle, REFRESH_TOKEN } from './fake-google.js';

function captureIo(): CliIo & { text(): string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _e, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { out: (l) => chunks.push(`${l}\n`), err: (l) => chunks.push(`${l}\n`), stdout: sink, stderr: sink, text: () => chunks.join('') };
}

const credentialFlags = ['--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET, '--refresh-token', REFRESH_TOKEN];

describe('herald webhooks gmail setup', () => {
  let google: FakeGoogle;
  let dir: string;

  beforeEach(async () => {
    google = await FakeGoogle.start();
    dir = tempDir('herald-gmail-setup-');
  });
  afterEach(() => google.server.close());

  function json5Config(): string {
    return `// my herald config
{
  gateway: { port: 9100 }, // the gateway
  hooks: {
    path: '/hooks',
    presets: [],
    gmail: {
      // tests talk to a fake Google
      endpoints: { oauthToken: '${google.endpoints().oauthToken}', gmail: '${google.url}', pubsub: '${google.url}' },
    },
  },
  storage: { sqlite: './data/herald.db' },
}
`;
  }

  async function setup(file: string, extra: string[] = []) {
    const io = captureIo();
    const code = await main(
      ['webhooks', 'gmail', 'setup', '--account', 'me@example.com', '--project', 'proj', '--push-endpoint', 'https://push.example.com/gmail-pubsub', ...credentialFlags, '--config', file, ...extra],
      io,
    );
    return { code, output: io.text() };
  }

  it('creates topic, permission, subscription and watch, and writes hooks.gmail keeping JSON5 comments', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const { code, output } = await setup(file);
    expect(output).toContain('create topic projects/proj/topics/gog-gmail-watch: created');
    expect(code).toBe(0);

    const token = google.calls('POST', '/token')[0]!;
    expect(new URLSearchParams(token.body).get('grant_type')).toBe('refresh_token');
    expect(google.calls('PUT', '/v1/projects/proj/topics/gog-gmail-watch')).toHaveLength(1);
    const getPolicy = google.calls('GET', '/v1/projects/proj/topics/gog-gmail-watch:getIamPolicy')[0]!;
    expect(getPolicy.query['options.requestedPolicyVersion']).toBe('3');
    const setPolicy = google.calls('POST', '/v1/projects/proj/topics/gog-gmail-watch:setIamPolicy')[0]!;
    // the etag read is sent back, so a concurrent policy change is not overwritten
    expect(setPolicy.json.policy.etag).toBe('ACAB');
    expect(setPolicy.json.policy.bindings).toEqual([{ role: 'roles/pubsub.publisher', members: ['serviceAccount:gmail-api-push@system.gserviceaccount.com'] }]);
    const sub = google.calls('PUT', '/v1/projects/proj/subscriptions/gog-gmail-watch-push')[0]!;
    expect(sub.json.topic).toBe('projects/proj/topics/gog-gmail-watch');
    const pushEndpoint = new URL(sub.json.pushConfig.pushEndpoint);
    expect(pushEndpoint.origin + pushEndpoint.pathname).toBe('https://push.example.com/gmail-pubsub');
    const watch = google.calls('POST', '/gmail/v1/users/me/watch')[0]!;
    expect(watch.json).toEqual({ topicName: 'projects/proj/topics/gog-gmail-watch', labelIds: ['INBOX'], labelFilterBehavior: 'include' });

    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// my herald config');
    expect(text).toContain('// tests talk to a fake Google');
    expect(text).toContain('// the gateway');
    const written = JSON5.parse(text);
    expect(written.hooks.enabled).toBe(true);
    expect(written.hooks.token).toMatch(/^[0-9a-f]{48}$/);
    expect(written.hooks.presets).toEqual(['gmail']);
    expect(written.hooks.gmail).toMatchObject({
      account: 'me@example.com',
      label: 'INBOX',
      topic: 'projects/proj/topics/gog-gmail-watch',
      subscription: 'gog-gmail-watch-push',
      pushToken: pushEndpoint.searchParams.get('token'),
      hookUrl: 'http://127.0.0.1:9100/hooks/gmail',
      includeBody: true,
      maxBytes: 20000,
      renewEveryMinutes: 720,
      serve: { bind: '127.0.0.1', port: 8788, path: '/gmail-pubsub' },
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, refreshToken: REFRESH_TOKEN },
    });
    // the result is a config herald accepts
    const loaded = await loadConfigFile(file);
    expect(loaded.config.hooks.presets).toEqual(['gmail']);

    // secrets are never printed
    for (const secret of [CLIENT_SECRET, REFRESH_TOKEN, ACCESS_TOKEN, written.hooks.token, written.hooks.gmail.pushToken]) expect(output).not.toContain(secret);
  });

  it('is safe to run again: existing resources are kept, tokens stay the same', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    expect((await setup(file)).code).toBe(0);
    const first = JSON5.parse(fs.readFileSync(file, 'utf8'));
    const before = google.requests.length;

    const again = await setup(file);
    expect(again.code).toBe(0);
    expect(again.output).toContain('exists already');
    expect(again.output).toContain('already allowed');
    expect(again.output).toContain('unchanged');
    const second = JSON5.parse(fs.readFileSync(file, 'utf8'));
    expect(second).toEqual(first);
    const calls = google.requests.slice(before);
    expect(calls.filter((r) => r.path.endsWith(':setIamPolicy'))).toHaveLength(0);
    expect(calls.filter((r) => r.method === 'PATCH')).toHaveLength(0);

    // a new push endpoint updates the subscription in place
    const moved = await setup(file, ['--push-endpoint', 'https://new.example.com/gmail-pubsub']);
    expect(moved.code).toBe(0);
    expect(google.calls('PATCH', '/v1/projects/proj/subscriptions/gog-gmail-watch-push')).toHaveLength(1);
    expect(google.subscriptions.get('projects/proj/subscriptions/gog-gmail-watch-push')!.pushConfig.pushEndpoint).toContain('https://new.example.com/gmail-pubsub?token=');
  });

  it('keeps JSON as JSON and YAML comments, and keeps an existing hook token', async () => {
    const jsonFile = path.join(dir, 'herald.json');
    fs.writeFileSync(jsonFile, JSON.stringify({ hooks: { token: 'existing-hook-token-123456', gmail: { endpoints: google.endpoints() } } }, null, 2));
    expect((await setup(jsonFile)).code).toBe(0);
    const json = JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
    expect(json.hooks).toMatchObject({ enabled: true, token: 'existing-hook-token-123456', presets: ['gmail'] });

    const yamlFile = path.join(dir, 'herald.yaml');
    fs.writeFileSync(
      yamlFile,
      `# herald, in YAML\nhooks:\n  enabled: false # will be turned on\n  gmail:\n    endpoints:\n      oauthToken: ${google.endpoints().oauthToken}\n      gmail: ${google.url}\n      pubsub: ${google.url}\n`,
    );
    expect((await setup(yamlFile, ['--label', 'IMPORTANT', '--hook-token', 'flag-hook-token-abcdef123'])).code).toBe(0);
    const yamlText = fs.readFileSync(yamlFile, 'utf8');
    expect(yamlText).toContain('# herald, in YAML');
    expect(yamlText).toContain('# will be turned on');
    const yaml = YAML.parse(yamlText);
    expect(yaml.hooks).toMatchObject({ enabled: true, token: 'flag-hook-token-abcdef123', presets: ['gmail'], gmail: { label: 'IMPORTANT' } });
  });

  it('credentials from GOOGLE_* variables are written as ${...} references, not values', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    Object.assign(process.env, { GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_CLIENT_SECRET: CLIENT_SECRET, GOOGLE_REFRESH_TOKEN: REFRESH_TOKEN });
    try {
      const io = captureIo();
      const code = await main(['webhooks', 'gmail', 'setup', '--account', 'me@example.com', '--project', 'proj', '--push-endpoint', 'https://p.example.com/x', '--config', file], io);
      expect(code).toBe(0);
    } finally {
      delete process.env.GOOGLE_CLIENT_ID;
      delete process.env.GOOGLE_CLIENT_SECRET;
      delete process.env.GOOGLE_REFRESH_TOKEN;
    }
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(CLIENT_SECRET);
    expect(JSON5.parse(text).hooks.gmail.oauth).toEqual({ clientId: '${GOOGLE_CLIENT_ID}', clientSecret: '${GOOGLE_CLIENT_SECRET}', refreshToken: '${GOOGLE_REFRESH_TOKEN}' });
  });

  it('--dry-run prints the steps and the config and changes nothing', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const before = fs.readFileSync(file, 'utf8');
    const io = captureIo();
    const code = await main(['webhooks', 'gmail', 'setup', '--account', 'me@example.com', '--project', 'proj', '--push-endpoint', 'https://p.example.com/x', ...credentialFlags, '--config', file, '--dry-run', '--json'], io);
    expect(code).toBe(0);
    const report = JSON.parse(io.text());
    expect(report.dryRun).toBe(true);
    expect(report.steps.every((s: { status: string }) => s.status === 'planned')).toBe(true);
    expect(report.hooks.gmail.account).toBe('me@example.com');
    expect(report.hooks.gmail.pushToken).toBe('[redacted]');
    expect(io.text()).not.toContain(CLIENT_SECRET);
    expect(google.requests).toHaveLength(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('a failing step stops with the API error and what to fix; the config is not touched', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const before = fs.readFileSync(file, 'utf8');
    google.failures.set('/v1/projects/proj/topics/', {
      status: 403,
      body: { error: { code: 403, message: 'Cloud Pub/Sub API has not been used in project proj before or it is disabled.', status: 'PERMISSION_DENIED' } },
    });
    const { code, output } = await setup(file);
    expect(code).toBe(1);
    expect(output).toContain('✗ create topic projects/proj/topics/gog-gmail-watch');
    expect(output).toContain('403 PERMISSION_DENIED');
    expect(output).toContain('Cloud Pub/Sub API has not been used');
    expect(output).toMatch(/fix: Enable the Cloud Pub\/Sub API in project proj/);
    expect(google.calls('POST', '/gmail/v1/users/me/watch')).toHaveLength(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);

    // a token without the Gmail scope: Google's 403 names the scopes, and so does the fix
    google.failures.clear();
    google.failures.set('/gmail/v1/users/me/watch', {
      status: 403,
      body: { error: { code: 403, message: 'Request had insufficient authentication scopes.', status: 'PERMISSION_DENIED' } },
    });
    const scopes = await setup(file);
    expect(scopes.code).toBe(1);
    expect(scopes.output).toMatch(/✗ watch me@example.com label INBOX: .*403 PERMISSION_DENIED/);
    expect(scopes.output).toMatch(/fix: The refresh token lacks the Gmail scope/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('waits for a just-granted publisher role to apply before the watch gives up', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    // what Gmail answers while the new IAM binding has not reached Pub/Sub yet
    google.failures.set('/gmail/v1/users/me/watch', {
      status: 403,
      body: { error: { code: 403, message: 'Error sending test message to Cloud PubSub projects/proj/topics/gog-gmail-watch : User not authorized to perform this action.', status: 'PERMISSION_DENIED' } },
      times: 2,
    });
    const io = captureIo();
    const argv = ['--account', 'me@example.com', '--project', 'proj', '--push-endpoint', 'https://push.example.com/gmail-pubsub', ...credentialFlags, '--config', file];
    const code = await setupCommand(argv, { configPath: file, stdout: io.stdout, stderr: io.stderr }, process.env, [10, 10, 10]);
    expect(io.text()).toContain('the publisher role is not in force yet');
    expect(code).toBe(0);
    expect(google.calls('POST', '/gmail/v1/users/me/watch')).toHaveLength(3);
    expect(JSON5.parse(fs.readFileSync(file, 'utf8')).hooks.gmail.account).toBe('me@example.com');

    // with the role already there (a second run), the same answer is not waited on: it names the fix
    google.failures.set('/gmail/v1/users/me/watch', {
      status: 403,
      body: { error: { code: 403, message: 'Error sending test message to Cloud PubSub projects/proj/topics/gog-gmail-watch : User not authorized to perform this action.', status: 'PERMISSION_DENIED' } },
    });
    const again = captureIo();
    expect(await setupCommand(argv, { configPath: file, stdout: again.stdout, stderr: again.stderr }, process.env, [10])).toBe(1);
    expect(again.text()).toMatch(/fix: gmail-api-push@system.gserviceaccount.com may not publish to the topic yet/);
  });

  it('refuses without --account/--project, and names missing credentials', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const io = captureIo();
    expect(await main(['webhooks', 'gmail', 'setup', '--project', 'proj', '--config', file], io)).toBe(2);
    expect(io.text()).toContain('--account');
    const io2 = captureIo();
    expect(await main(['webhooks', 'gmail', 'setup', '--account', 'a@b.c', '--project', 'proj', '--push-endpoint', 'https://x.example.com/p', '--config', file], io2)).toBe(1);
    expect(io2.text()).toContain('GOOGLE_REFRESH_TOKEN');
    expect(google.requests).toHaveLength(0);
  });

  it('stores the watch\'s historyId as the starting point, in the configured store', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    google.addMail({ id: 'before-setup', text: 'x' });
    const { code, output } = await setup(file);
    expect(code).toBe(0);
    expect(output).toContain(`store the starting point (historyId ${google.historyId})`);
    const host = await openCommandHost('gmail', file, builtinPlugins);
    try {
      expect(await host.host.state.get('historyId:me@example.com')).toBe(String(google.historyId));
      expect(await host.host.state.get('baseline:me@example.com')).toMatchObject({ historyId: String(google.historyId) });
    } finally {
      await host.close();
    }
  });

  it('creates the subscription never to expire, and fixes one that would', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    expect((await setup(file)).code).toBe(0);
    const sub = 'projects/proj/subscriptions/gog-gmail-watch-push';
    expect(google.calls('PUT', `/v1/${sub}`)[0]!.json.expirationPolicy).toEqual({});
    google.subscriptions.get(sub)!.expirationPolicy = { ttl: '2678400s' };
    const again = await setup(file);
    expect(again.code).toBe(0);
    expect(google.calls('PATCH', `/v1/${sub}`)[0]!.json).toMatchObject({ updateMask: 'expirationPolicy', subscription: { expirationPolicy: {} } });
  });

  it('never appends Gmail\'s publisher to a conditional binding', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const topic = 'projects/proj/topics/gog-gmail-watch';
    google.topics.add(topic);
    const conditional = { role: 'roles/pubsub.publisher', members: ['user:ops@example.com'], condition: { title: 'office hours', expression: 'request.time.getHours("Europe/Berlin") < 18' } };
    google.policies.set(topic, { version: 3, etag: 'BwX1', bindings: [conditional] });
    expect((await setup(file)).code).toBe(0);
    const sent = google.calls('POST', `/v1/${topic}:setIamPolicy`)[0]!.json.policy;
    expect(sent.bindings).toEqual([conditional, { role: 'roles/pubsub.publisher', members: ['serviceAccount:gmail-api-push@system.gserviceaccount.com'] }]);
  });

  it('refuses an http:// push endpoint unless --allow-http', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const io = captureIo();
    const args = ['webhooks', 'gmail', 'setup', '--account', 'me@example.com', '--project', 'proj', '--push-endpoint', 'http://push.example.com/gmail-pubsub', ...credentialFlags, '--config', file];
    expect(await main(args, io)).toBe(1);
    expect(io.text()).toContain('--allow-http');
    expect(google.requests).toHaveLength(0);
    expect(await main([...args, '--allow-http'], captureIo())).toBe(0);
  });

  it('--renew-minutes past the 7-day watch expiry is refused', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    const { code, output } = await setup(file, ['--renew-minutes', String(7 * 24 * 60)]);
    expect(code).toBe(1);
    expect(output).toContain('7 days');
  });

  it('--oidc-service-account makes an authenticated push subscription and writes hooks.gmail.pushOidc', async () => {
    const file = path.join(dir, 'herald.json5');
    fs.writeFileSync(file, json5Config());
    expect((await setup(file, ['--oidc-service-account', 'pusher@proj.iam.gserviceaccount.com'])).code).toBe(0);
    const put = google.calls('PUT', '/v1/projects/proj/subscriptions/gog-gmail-watch-push')[0]!;
    expect(put.json.pushConfig.oidcToken).toEqual({ serviceAccountEmail: 'pusher@proj.iam.gserviceaccount.com', audience: 'https://push.example.com/gmail-pubsub' });
    const written = JSON5.parse(fs.readFileSync(file, 'utf8'));
    expect(written.hooks.gmail.pushOidc).toEqual({ serviceAccountEmail: 'pusher@proj.iam.gserviceaccount.com', audience: 'https://push.example.com/gmail-pubsub' });
    await loadConfigFile(file);
  });
});
