import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compileSignatureVerifier } from '../../src/mappings/signatures/signature-verifier.js';
import { mappingAuthSchema } from '../../src/config/sections/mapping-schema.js';

/**
 * The body-signed and shared-token schemes, each checked against a request signed as its sender
 * documents (the verifier's file cites each page): the right secret passes; a wrong secret, a
 * changed body, a missing or malformed header fail, with the reason the log gets.
 */
const SECRET = 'sender-signing-secret-0123456789';
const NOW = Date.UTC(2026, 10, 24, 18, 0, 0);
const body = Buffer.from(JSON.stringify({ action: 'create', type: 'Issue', webhookTimestamp: NOW - 5_000, data: { id: 'x', title: 'Ünïcode' } }));
const tampered = Buffer.from(body.toString().replace('create', 'remove'));
const mac = (data: Uint8Array, secret = SECRET) => createHmac('sha256', secret).update(data).digest();

const verifier = (type: string, extra: Record<string, unknown> = {}) => compileSignatureVerifier(mappingAuthSchema.parse({ type, secret: SECRET, ...extra }));

/** for each scheme: the headers its sender sends for `data` signed with `secret` */
const signers: Record<string, (data: Uint8Array, secret?: string) => Record<string, string>> = {
  sentry: (data, secret) => ({ 'sentry-hook-signature': mac(data, secret).toString('hex') }),
  shopify: (data, secret) => ({ 'x-shopify-hmac-sha256': mac(data, secret).toString('base64') }),
  jira: (data, secret) => ({ 'x-hub-signature': `sha256=${mac(data, secret).toString('hex')}` }),
  // during a rotation PagerDuty sends one v1 per secret, comma-separated
  pagerduty: (data, secret) => ({ 'x-pagerduty-signature': `v1=${mac(data, 'rotated-out').toString('hex')},v1=${mac(data, secret).toString('hex')}` }),
  linear: (data, secret) => ({ 'linear-signature': mac(data, secret).toString('hex') }),
};

describe.each(Object.keys(signers))('%s signature', (type) => {
  const sign = signers[type]!;
  const check = verifier(type);

  it('verifies a request signed with the secret over the raw body', () => {
    expect(check.verify(sign(body), body, NOW)).toBe(true);
  });

  it('refuses another secret, a changed body, and no header', () => {
    expect(check.verify(sign(body, 'another-secret'), body, NOW)).toBe(false);
    expect(check.verify(sign(body), tampered, NOW)).toBe(false);
    expect(check.verify({}, body, NOW)).toBe(false);
    expect(check.failure({}, NOW, body)).toBe('missing signature');
    expect(check.failure(sign(body, 'another-secret'), NOW, body)).toBe('bad signature');
  });
});

describe('the encodings each sender uses, and no other', () => {
  it('shopify is base64, not hex; jira needs its sha256= prefix; pagerduty its v1= prefix', () => {
    expect(verifier('shopify').verify({ 'x-shopify-hmac-sha256': mac(body).toString('hex') }, body, NOW)).toBe(false);
    expect(verifier('jira').verify({ 'x-hub-signature': mac(body).toString('hex') }, body, NOW)).toBe(false);
    expect(verifier('pagerduty').verify({ 'x-pagerduty-signature': mac(body).toString('hex') }, body, NOW)).toBe(false);
    expect(verifier('pagerduty').verify({ 'x-pagerduty-signature': `v0=${mac(body).toString('hex')}` }, body, NOW)).toBe(false);
  });
});

describe('linear webhookTimestamp', () => {
  const at = (ms: number) => Buffer.from(JSON.stringify({ type: 'Issue', webhookTimestamp: ms }));

  it('is accepted within a minute of now, as Linear advises, and refused past it', () => {
    const fresh = at(NOW - 59_000);
    const stale = at(NOW - 61_000);
    expect(verifier('linear').verify(signers.linear!(fresh), fresh, NOW)).toBe(true);
    expect(verifier('linear').verify(signers.linear!(stale), stale, NOW)).toBe(false);
    expect(verifier('linear').failure(signers.linear!(stale), NOW, stale)).toBe('stale timestamp');
  });

  it('follows toleranceSeconds when set, and a body without the field is refused', () => {
    const old = at(NOW - 600_000);
    expect(verifier('linear', { toleranceSeconds: 900 }).verify(signers.linear!(old), old, NOW)).toBe(true);
    const none = Buffer.from('{"type":"Issue"}');
    expect(verifier('linear').verify(signers.linear!(none), none, NOW)).toBe(false);
  });

  it('a tolerance is refused where no timestamp is signed', () => {
    expect(() => verifier('sentry', { toleranceSeconds: 60 })).toThrow('toleranceSeconds: sentry signs no timestamp');
  });
});

describe('shared tokens', () => {
  it('gitlab: X-Gitlab-Token equal to the secret token', () => {
    const check = verifier('gitlab');
    expect(check.verify({ 'x-gitlab-token': SECRET }, body, NOW)).toBe(true);
    expect(check.verify({ 'x-gitlab-token': `${SECRET}x` }, body, NOW)).toBe(false);
    expect(check.verify({ 'x-gitlab-token': SECRET.slice(0, -1) }, body, NOW)).toBe(false);
    expect(check.failure({}, NOW)).toBe('missing signature');
    expect(check.failure({ 'x-gitlab-token': 'nope' }, NOW)).toBe('bad signature');
  });

  it('bearer: Authorization: Bearer <secret>, nothing else', () => {
    const check = verifier('bearer');
    expect(check.verify({ authorization: `Bearer ${SECRET}` }, body, NOW)).toBe(true);
    expect(check.verify({ authorization: `bearer ${SECRET}` }, body, NOW)).toBe(true);
    expect(check.verify({ authorization: `Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}` }, body, NOW)).toBe(false);
    expect(check.verify({ authorization: 'Bearer wrong' }, body, NOW)).toBe(false);
    expect(check.verify({ 'x-gateway-token': SECRET }, body, NOW)).toBe(false);
  });
});
