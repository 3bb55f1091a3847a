import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { runMappingFixtures } from '../../src/mappings/loading/mapping-fixtures.js';
import { HOOK_TOKEN, baseConfig, hookHeaders, tempDir } from '../helpers/start-herald.js';
import { testApp, type TestApp } from './app-fixture.js';
import { sqliteDb } from '../helpers/sqlite-db.js';

/**
 * Per-mapping signature verification, end to end: the repository's own github.yaml and
 * stripe.yaml with an `auth` block added, signed exactly as GitHub and Stripe sign.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const GITHUB_SECRET = 'gh-webhook-secret-It5s4Secret';
const STRIPE_SECRET = 'whsec_stripeTestSecret0123456789';
const STANDARD_SECRET = `whsec_${Buffer.from('standard-webhooks-key-0123456789').toString('base64')}`;
const HMAC_SECRET = 'generic-hmac-secret-0123456789';
const BEARER_SECRET = 'alertmanager-own-token-0123456789';

const env = { TEST_GITHUB_WEBHOOK_SECRET: GITHUB_SECRET, TEST_STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, TEST_STANDARD_SECRET: STANDARD_SECRET };
beforeAll(() => Object.assign(process.env, env));
afterAll(() => {
  for (const name of Object.keys(env)) delete process.env[name];
});

let herald: TestApp | undefined;
afterEach(async () => {
  await herald?.stop();
  herald = undefined;
});

/** a repository mapping file with `auth` added to every mapping (in a file, `${ENV}` is substituted too) */
function withAuth(file: string, auth: Record<string, unknown>): string {
  const mappings = YAML.parse(fs.readFileSync(path.join(root, 'mappings', file), 'utf8')) as Record<string, unknown>[];
  return YAML.stringify(mappings.map((m) => ({ ...m, auth })));
}

const files = {
  'mappings/github.yaml': withAuth('github.yaml', { type: 'github', secret: '${TEST_GITHUB_WEBHOOK_SECRET}' }),
  'mappings/github.test.json': fs.readFileSync(path.join(root, 'mappings/github.test.json'), 'utf8'),
  'mappings/stripe.yaml': withAuth('stripe.yaml', { type: 'stripe', secret: '${TEST_STRIPE_WEBHOOK_SECRET}' }),
  'mappings/stripe.test.json': fs.readFileSync(path.join(root, 'mappings/stripe.test.json'), 'utf8'),
  'transforms/github-pull-request.ts': fs.readFileSync(path.join(root, 'transforms/github-pull-request.ts'), 'utf8'),
  'transforms/ignore.mjs': fs.readFileSync(path.join(root, 'transforms/ignore.mjs'), 'utf8'),
};

const config = () =>
  baseConfig({
    hooks: {
      mappings: [
        { id: 'svix', match: { path: 'svix' }, action: 'wake', textTemplate: 'svix {{type}}', auth: { type: 'standard-webhooks', secret: '${TEST_STANDARD_SECRET}' } },
        { id: 'generic', match: { path: 'generic' }, action: 'wake', textTemplate: 'generic {{type}}', auth: { type: 'hmac-sha256', secret: HMAC_SECRET, header: 'X-Signature' } },
        { id: 'elsewhere', match: { path: 'elsewhere' }, action: 'wake', textTemplate: 'anything' },
        { id: 'own-token', match: { path: 'own-token' }, action: 'wake', textTemplate: 'own {{status}}', auth: { type: 'bearer', secret: BEARER_SECRET } },
      ],
    },
  });

const fixture = (file: string, index: number) => JSON.parse(fs.readFileSync(path.join(root, 'mappings', file), 'utf8'))[index] as { headers: Record<string, string>; payload: unknown };
const hex = (secret: string | Buffer, data: string) => createHmac('sha256', secret).update(data).digest('hex');

/** what GitHub sends: X-Hub-Signature-256 over the raw body, no Authorization header */
function githubDelivery(index: number, secret = GITHUB_SECRET) {
  const { headers, payload } = fixture('github.test.json', index);
  const body = JSON.stringify(payload);
  return { body, headers: { ...headers, 'x-hub-signature-256': `sha256=${hex(secret, body)}` } };
}

/** what Stripe sends: t=<seconds>,v1=<hex HMAC of "t.body">, here with a v0 and a rotated-out v1 beside it */
function stripeDelivery(index: number, at = Math.floor(Date.now() / 1000), secret = STRIPE_SECRET) {
  const body = JSON.stringify(fixture('stripe.test.json', index).payload);
  const signature = `t=${at},v1=${hex('whsec_old', `${at}.${body}`)},v1=${hex(secret, `${at}.${body}`)},v0=${'0'.repeat(64)}`;
  return { body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}

async function post(hookPath: string, delivery: { body: string; headers: Record<string, string> }, query = '') {
  const res = await herald!.request(`/hooks/${hookPath}${query}`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, any>), headers: res.headers };
}

async function run(id: string) {
  return herald!.gateway.store.runs.get(id);
}

describe('per-mapping signature verification', () => {
  it('accepts GitHub deliveries signed with X-Hub-Signature-256, without the hook token', async () => {
    herald = await testApp(config(), { files });
    const issue = await post('github', githubDelivery(2));
    expect(issue.status).toBe(202);
    expect((await run(issue.body!.runId))?.name).toBe('GitHub issue acme/app#42');
    expect(await post('github', githubDelivery(0))).toMatchObject({ status: 200, body: { ok: true, mode: 'next-heartbeat' } });
    expect((await post('github', githubDelivery(8))).status).toBe(204); // ping, acknowledged
    // the signature header is not a secret: the log never holds the body or the secret either way
    expect(herald.rawLogs()).not.toContain(GITHUB_SECRET);
  });

  it('refuses a wrong, missing or malformed signature and a tampered body with 401', async () => {
    herald = await testApp(config(), { files });
    const wrong = githubDelivery(2, 'not-the-secret');
    expect(await post('github', wrong)).toMatchObject({ status: 401, body: { ok: false, error: 'unauthorized' } });

    const good = githubDelivery(2);
    const { 'x-hub-signature-256': _sig, ...unsigned } = good.headers;
    expect((await post('github', { body: good.body, headers: unsigned })).status).toBe(401);
    expect((await post('github', { body: good.body, headers: { ...unsigned, 'x-hub-signature-256': hex(GITHUB_SECRET, good.body) } })).status).toBe(401); // no sha256= prefix
    // one changed byte of the body (the title), signature of the original
    const tampered = { ...good, body: good.body.replace('"number":42', '"number":43') };
    expect(tampered.body).not.toBe(good.body);
    expect((await post('github', tampered)).status).toBe(401);
    // whitespace the JSON parser ignores still changes the signed bytes
    expect((await post('github', { ...good, body: `${good.body} ` })).status).toBe(401);
    // a GitHub signature says nothing about another path
    expect((await post('stripe', good)).status).toBe(401);
    expect(sqliteDb(herald.gateway.store).prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
  });

  it('accepts Stripe deliveries within the tolerance and refuses a stale timestamp', async () => {
    herald = await testApp(config(), { files });
    const failed = await post('stripe', stripeDelivery(0));
    expect(failed.status).toBe(202);
    expect((await run(failed.body!.runId))?.sessionKey).toBe('hook:stripe:cus_Q4ezRk2bXo1fJm');
    expect((await post('stripe', stripeDelivery(2))).status).toBe(200);

    const now = Math.floor(Date.now() / 1000);
    expect((await post('stripe', stripeDelivery(2, now - 301))).status).toBe(401); // default tolerance: 300 s
    expect((await post('stripe', stripeDelivery(2, now + 3600))).status).toBe(401);
    expect((await post('stripe', stripeDelivery(2, now, 'whsec_wrong'))).status).toBe(401);
    // the fixture's header was signed long ago with another secret
    const old = fixture('stripe.test.json', 2);
    expect((await post('stripe', { body: JSON.stringify(old.payload), headers: { 'content-type': 'application/json', 'stripe-signature': old.headers['Stripe-Signature']! } })).status).toBe(401);
  });

  it('accepts Standard Webhooks and generic hmac-sha256 signatures', async () => {
    herald = await testApp(config(), { files });
    const body = JSON.stringify({ type: 'user.created' });
    const at = String(Math.floor(Date.now() / 1000));
    const key = Buffer.from(STANDARD_SECRET.slice('whsec_'.length), 'base64');
    const signature = createHmac('sha256', key).update(`msg_1.${at}.${body}`).digest('base64');
    const standard = (sig: string, id = 'msg_1') => ({ body, headers: { 'webhook-id': id, 'webhook-timestamp': at, 'webhook-signature': sig } });
    expect(await post('svix', standard(`v1,${'A'.repeat(43)}= v1,${signature}`))).toMatchObject({ status: 200, body: { ok: true } });
    expect((await post('svix', standard(`v1,${signature}`, 'msg_2'))).status).toBe(401); // the id is signed
    expect((await post('svix', standard(`v2,${signature}`))).status).toBe(401);

    expect((await post('generic', { body, headers: { 'x-signature': hex(HMAC_SECRET, body) } })).status).toBe(200);
    expect((await post('generic', { body, headers: { 'x-signature': `sha256=${hex(HMAC_SECRET, body)}` } })).status).toBe(200);
    expect((await post('generic', { body, headers: { 'x-signature': hex('nope', body) } })).status).toBe(401);
  });

  it('still takes the hook token, and a presented token decides alone', async () => {
    herald = await testApp(config(), { files });
    const { body, headers } = githubDelivery(2);
    const { 'x-hub-signature-256': _sig, ...unsigned } = headers;
    expect((await post('github', { body, headers: { ...unsigned, authorization: `Bearer ${HOOK_TOKEN}` } })).status).toBe(202);
    const deprecated = await post('github', { body, headers: unsigned }, `?token=${HOOK_TOKEN}`);
    expect(deprecated.status).toBe(202);
    expect(deprecated.headers.get('deprecation')).toBe('true');
    // a wrong token is not rescued by a right signature
    expect((await post('github', { body, headers: { ...headers, authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    // a signature opens only its own path
    expect((await post('elsewhere', { body: '{}', headers: hookHeaders() })).status).toBe(200);
    expect((await post('elsewhere', githubDelivery(2))).status).toBe(401);
  });

  it('auth bearer: a token of its own opens its path (and only it); the hook token still does', async () => {
    herald = await testApp(config(), { files });
    const body = JSON.stringify({ status: 'firing' });
    const bearer = (token: string) => ({ body, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
    expect(await post('own-token', bearer(BEARER_SECRET))).toMatchObject({ status: 200, body: { ok: true } });
    expect((await post('own-token', bearer(HOOK_TOKEN))).status).toBe(200);
    expect((await post('own-token', bearer('wrong-token-0123456789'))).status).toBe(401);
    expect((await post('own-token', { body, headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect((await post('elsewhere', bearer(BEARER_SECRET))).status).toBe(401);
    expect(herald.rawLogs()).not.toContain(BEARER_SECRET);
  });

  it('counts failed signatures toward the 429 limiter', async () => {
    herald = await testApp(config(), { files });
    for (let i = 0; i < 20; i++) expect((await post('github', githubDelivery(2, 'wrong'))).status).toBe(401);
    const limited = await post('github', githubDelivery(2, 'wrong'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // the sender's own signature still gets through
    expect((await post('github', githubDelivery(2))).status).toBe(202);
  });

  it('keeps the mapping fixtures of signed mapping files working', async () => {
    const dir = tempDir();
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const loaded = await loadConfigValue({}, path.join(dir, 'herald.json'));
    for (const fixtureFile of ['github.test.json', 'stripe.test.json']) {
      const results = await runMappingFixtures(path.join(dir, 'mappings', fixtureFile), loaded, { config: loaded.config, channelNames: loaded.plugins.channelNames() });
      expect(results.filter((r) => !r.ok)).toEqual([]);
    }
  });

  it('refuses the start for auth without match.path, a path partly signed, a bad auth block or a missing variable', async () => {
    const refused = async (mappings: unknown[], extra: Record<string, string> = {}) => {
      const error = await testApp({ hooks: { mappings } }, { files: extra }).then(
        (h) => h.stop().then(() => undefined),
        (e: Error) => e.message,
      );
      expect(error).toBeDefined();
      return error!;
    };
    const auth = { type: 'github', secret: 's3cret' };
    expect(await refused([{ id: 'no-path', match: { source: 'gh' }, auth }])).toContain('mapping "no-path"');
    expect(await refused([{ id: 'no-path', auth }])).toContain('auth: a mapping with auth needs match.path');
    expect(await refused([{ id: 'signed', match: { path: 'gh' }, auth }, { id: 'open', match: { path: 'gh' } }])).toMatch(/mapping "open".*mapping "signed" of match.path "gh" declares auth/);
    expect(await refused([{ id: 'h', match: { path: 'x' }, auth: { type: 'hmac-sha256', secret: 's' } }])).toContain('auth.header: hmac-sha256 needs the header');
    expect(await refused([{ id: 'h', match: { path: 'x' }, auth: { type: 'github', secret: 's', toleranceSeconds: 5 } }])).toContain('toleranceSeconds: github signs no timestamp');
    expect(await refused([{ id: 'h', match: { path: 'x' }, auth: { type: 'standard-webhooks', secret: 'whsec_!!' } }])).toContain('whsec_<base64>');
    expect(await refused([{ id: 'h', match: { path: 'x' }, auth: { type: 'bitbucket', secret: 's' } }])).toContain('hooks.mappings[0].auth.type');
    const missing = await refused([], { 'mappings/x.yaml': 'id: x\nmatch: { path: x }\naction: wake\ntextTemplate: t\nauth: { type: github, secret: "${HERALD_TEST_UNSET_SECRET}" }\n' });
    expect(missing).toContain('environment variable HERALD_TEST_UNSET_SECRET is not set');
    expect(missing).toContain('x.yaml[0].auth.secret');
  });
});
