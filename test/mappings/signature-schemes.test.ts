import { createHmac, generateKeyPairSync, sign as ed25519Sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyKey } from 'discord-interactions';
import { Signature as HubSpotSignature } from '@hubspot/api-client/lib/src/utils/signature.js';
import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import { compileSignatureVerifier } from '../../src/mappings/signatures/signature-verifier.js';
import { mappingAuthSchema } from '../../src/config/sections/mapping-schema.js';
import { allowedCertUrl } from '../../src/mappings/signatures/paypal-certs.js';
import { crc32 } from '../../src/utils/crc32.js';
import zlib from 'node:zlib';

/**
 * The signature schemes of issue 74, each checked against a request signed as its sender signs:
 * by the sender's own npm library where one exists (twilio, @hubspot/api-client), by Node's
 * crypto exactly as the sender's documentation says otherwise (the verifiers cite each page).
 * Where the library verifies (discord-interactions, twilio, @hubspot/api-client), what herald
 * accepts passes it too.
 */
const SECRET = 'sender-signing-secret-0123456789';
const NOW = Date.UTC(2026, 10, 24, 18, 0, 0);
const NOW_S = String(NOW / 1000);
const body = Buffer.from(JSON.stringify({ topic: 'conversation.user.created', data: { item: { id: '123', body: 'Ünïcode' } } }));
const changed = Buffer.from(body.toString().replace('123', '124'));
const mac = (hash: 'sha1' | 'sha256', data: string | Uint8Array, secret = SECRET) => createHmac(hash, secret).update(data).digest();

const verifier = (auth: Record<string, unknown>) => compileSignatureVerifier(mappingAuthSchema.parse({ secret: SECRET, ...auth }));
const fault = (auth: Record<string, unknown>) => {
  try {
    compileSignatureVerifier(mappingAuthSchema.parse(auth));
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('hmac-sha1 and hmac-sha256: a header, hex or base64, optionally a signed timestamp', () => {
  it('Intercom: X-Hub-Signature sha1=<hex HMAC-SHA1 of the body>', () => {
    const check = verifier({ type: 'hmac-sha1', header: 'X-Hub-Signature' });
    expect(check.verify({ 'x-hub-signature': `sha1=${mac('sha1', body).toString('hex')}` }, body, NOW)).toBe(true);
    expect(check.verify({ 'x-hub-signature': `sha1=${mac('sha1', body).toString('hex')}` }, changed, NOW)).toBe(false);
    expect(check.verify({ 'x-hub-signature': `sha1=${mac('sha1', body, 'another').toString('hex')}` }, body, NOW)).toBe(false);
    // a SHA-256 digest is not a SHA-1 one
    expect(check.verify({ 'x-hub-signature': `sha256=${mac('sha256', body).toString('hex')}` }, body, NOW)).toBe(false);
    expect(check.failure({}, NOW)).toBe('missing signature');
  });

  it('Vercel: x-vercel-signature, hex HMAC-SHA1 without a prefix', () => {
    const check = verifier({ type: 'hmac-sha1', header: 'x-vercel-signature' });
    expect(check.verify({ 'x-vercel-signature': mac('sha1', body).toString('hex') }, body, NOW)).toBe(true);
    expect(check.verify({ 'x-vercel-signature': mac('sha1', body).toString('base64') }, body, NOW)).toBe(false);
  });

  it('Typeform: Typeform-Signature sha256=<base64>; base64 is read only when the encoding says so', () => {
    const check = verifier({ type: 'hmac-sha256', header: 'Typeform-Signature', encoding: 'base64' });
    expect(check.verify({ 'typeform-signature': `sha256=${mac('sha256', body).toString('base64')}` }, body, NOW)).toBe(true);
    expect(check.verify({ 'typeform-signature': `sha256=${mac('sha256', body).toString('hex')}` }, body, NOW)).toBe(false);
    expect(verifier({ type: 'hmac-sha256', header: 'Typeform-Signature' }).verify({ 'typeform-signature': `sha256=${mac('sha256', body).toString('base64')}` }, body, NOW)).toBe(false);
  });

  it("Zendesk: base64(HMACSHA256(TIMESTAMP + BODY)) with an ISO 8601 timestamp, within the tolerance either way", () => {
    const check = verifier({ type: 'hmac-sha256', header: 'X-Zendesk-Webhook-Signature', encoding: 'base64', timestampHeader: 'X-Zendesk-Webhook-Signature-Timestamp' });
    const at = (ms: number) => {
      const timestamp = new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
      return { 'x-zendesk-webhook-signature-timestamp': timestamp, 'x-zendesk-webhook-signature': mac('sha256', Buffer.concat([Buffer.from(timestamp), body])).toString('base64') };
    };
    expect(check.verify(at(NOW - 60_000), body, NOW)).toBe(true);
    expect(check.verify(at(NOW - 301_000), body, NOW)).toBe(false);
    expect(check.failure(at(NOW - 301_000), NOW)).toBe('stale timestamp');
    expect(check.verify(at(NOW + 301_000), body, NOW)).toBe(false);
    // the timestamp is signed: another one with the same digest fails
    expect(check.verify({ ...at(NOW), 'x-zendesk-webhook-signature-timestamp': new Date(NOW - 1000).toISOString() }, body, NOW)).toBe(false);
    expect(verifier({ type: 'hmac-sha256', header: 'X-Zendesk-Webhook-Signature', encoding: 'base64', timestampHeader: 'X-Zendesk-Webhook-Signature-Timestamp', toleranceSeconds: 600 }).verify(at(NOW - 500_000), body, NOW)).toBe(true);
  });
});

describe('ed25519 (Discord interactions)', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const publicHex = (publicKey.export({ format: 'jwk' }).x as string) && Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('hex');
  const signed = (timestamp: string, data: Uint8Array) => ({
    'x-signature-timestamp': timestamp,
    'x-signature-ed25519': ed25519Sign(null, Buffer.concat([Buffer.from(timestamp), data]), privateKey).toString('hex'),
  });
  const check = compileSignatureVerifier(mappingAuthSchema.parse({ type: 'ed25519', publicKey: publicHex }));

  it('accepts the signature of the timestamp and body, and discord-interactions accepts what herald accepts', async () => {
    const headers = signed(NOW_S, body);
    expect(check.verify(headers, body, NOW)).toBe(true);
    expect(await verifyKey(body, headers['x-signature-ed25519'], headers['x-signature-timestamp'], publicHex)).toBe(true);
  });

  it('refuses a changed body, another key, a stale timestamp (which discord-interactions does not check), no header', async () => {
    expect(check.verify(signed(NOW_S, body), changed, NOW)).toBe(false);
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(check.verify({ 'x-signature-timestamp': NOW_S, 'x-signature-ed25519': ed25519Sign(null, Buffer.concat([Buffer.from(NOW_S), body]), other).toString('hex') }, body, NOW)).toBe(false);
    const stale = signed(String(NOW / 1000 - 301), body);
    expect(check.verify(stale, body, NOW)).toBe(false);
    expect(check.failure(stale, NOW)).toBe('stale timestamp');
    // herald is stricter than Discord's library here: it has no window
    expect(await verifyKey(body, stale['x-signature-ed25519'], stale['x-signature-timestamp'], publicHex)).toBe(true);
    expect(check.failure({}, NOW)).toBe('missing signature');
  });
});

describe("hubspot v3, signed by @hubspot/api-client's Signature", () => {
  const url = 'https://herald.example.com/hooks/hubspot?portal=62515';
  const check = verifier({ type: 'hubspot' });
  const signed = (timestamp: number, data: Buffer, secret = SECRET) => ({
    'x-hubspot-request-timestamp': String(timestamp),
    'x-hubspot-signature-v3': HubSpotSignature.getSignature('POST', 'v3', { signature: '', clientSecret: secret, requestBody: data.toString(), url, timestamp }),
  });

  it('accepts what the library signs, and the library accepts it', () => {
    const now = Date.now();
    const headers = signed(now, body);
    expect(check.verify(headers, body, now, url)).toBe(true);
    expect(HubSpotSignature.isValid({ signatureVersion: 'v3', signature: headers['x-hubspot-signature-v3'], clientSecret: SECRET, requestBody: body.toString(), url, timestamp: now })).toBe(true);
  });

  it('refuses another URL, a changed body, another secret, and a timestamp five minutes away either way', () => {
    expect(check.verify(signed(NOW, body), body, NOW, 'https://herald.example.com/hooks/hubspot')).toBe(false);
    expect(check.verify(signed(NOW, body), changed, NOW, url)).toBe(false);
    expect(check.verify(signed(NOW, body, 'another'), body, NOW, url)).toBe(false);
    expect(check.verify(signed(NOW - 301_000, body), body, NOW, url)).toBe(false);
    expect(check.failure(signed(NOW - 301_000, body), NOW)).toBe('stale timestamp');
    expect(check.verify(signed(NOW + 301_000, body), body, NOW, url)).toBe(false);
  });

  it('decodes the characters HubSpot lists in the URI it signs; url: the URL as configured at HubSpot', () => {
    const encoded = 'https://herald.example.com/hooks/hubspot?next=%2Fdeals%3Fid%3D1&name=a%20b';
    const headers = {
      'x-hubspot-request-timestamp': String(NOW),
      'x-hubspot-signature-v3': mac('sha256', `POSThttps://herald.example.com/hooks/hubspot?next=/deals?id%3D1&name=a%20b${body}${NOW}`).toString('base64'),
    };
    expect(check.verify(headers, body, NOW, encoded)).toBe(true);
    expect(verifier({ type: 'hubspot', url: encoded }).verify(headers, body, NOW, 'http://127.0.0.1:8787/hooks/hubspot')).toBe(true);
  });
});

describe('calendly and zoom', () => {
  it('Calendly: t=<seconds>,v1=<hex HMAC of "t.body">, three minutes by default', () => {
    const check = verifier({ type: 'calendly' });
    const at = (t: number) => ({ 'calendly-webhook-signature': `t=${t},v1=${mac('sha256', `${t}.${body}`).toString('hex')}` });
    expect(check.verify(at(NOW / 1000 - 170), body, NOW)).toBe(true);
    expect(check.verify(at(NOW / 1000 - 190), body, NOW)).toBe(false);
    expect(check.failure(at(NOW / 1000 - 190), NOW)).toBe('stale timestamp');
    expect(check.verify(at(NOW / 1000), changed, NOW)).toBe(false);
    expect(verifier({ type: 'calendly', toleranceSeconds: 600 }).verify(at(NOW / 1000 - 500), body, NOW)).toBe(true);
  });

  it('Zoom: x-zm-signature v0=<hex HMAC of "v0:<ts>:<body>">, x-zm-request-timestamp', () => {
    const check = verifier({ type: 'zoom' });
    const at = (t: number, secret = SECRET) => ({ 'x-zm-request-timestamp': String(t), 'x-zm-signature': `v0=${mac('sha256', `v0:${t}:${body}`, secret).toString('hex')}` });
    expect(check.verify(at(NOW / 1000), body, NOW)).toBe(true);
    expect(check.verify(at(NOW / 1000, 'another'), body, NOW)).toBe(false);
    expect(check.verify(at(NOW / 1000 - 301), body, NOW)).toBe(false);
    expect(check.verify(at(NOW / 1000), changed, NOW)).toBe(false);
    expect(check.failure({}, NOW)).toBe('missing signature');
  });
});

describe('twilio with a Webhook Setting (X-Twilio-Webhooks-Signature-Settings), signed by the twilio library', () => {
  const url = 'https://herald.example.com/hooks/twilio';
  const form = 'Body=Hello&From=%2B14155550100&MessageSid=SM1&To=%2B14155550199';
  const params = Object.fromEntries(new URLSearchParams(form));
  const formBody = Buffer.from(form);
  const SHARED = 'shared-key-secret-0123456789';
  const headers = (signature: string, settings?: string) => ({
    'content-type': 'application/x-www-form-urlencoded',
    'x-twilio-signature': signature,
    ...(settings !== undefined && { 'x-twilio-webhooks-signature-settings': settings }),
  });

  it('HMAC_SHA256 with the shared key: accepted, and twilio.validateRequest accepts it too', () => {
    const signature = getExpectedTwilioSignature(SHARED, url, params, 'HMAC_SHA256');
    const check = verifier({ type: 'twilio', sharedKey: SHARED });
    expect(check.verify(headers(signature, 'key=SK0123,algorithm=HMAC_SHA256'), formBody, NOW, url)).toBe(true);
    expect(validateRequest(SHARED, signature, url, params, 'HMAC_SHA256')).toBe(true);
    // the same digest under the auth token's scheme (no settings header) is not accepted
    expect(check.verify(headers(signature), formBody, NOW, url)).toBe(false);
  });

  it('without the header the auth token and HMAC-SHA1 verify, as before; a shared-key request never verifies with the auth token', () => {
    const check = verifier({ type: 'twilio', sharedKey: SHARED });
    const sha1 = getExpectedTwilioSignature(SECRET, url, params);
    expect(check.verify(headers(sha1), formBody, NOW, url)).toBe(true);
    expect(check.verify(headers(getExpectedTwilioSignature(SECRET, url, params, 'HMAC_SHA256'), 'key=SK0123,algorithm=HMAC_SHA256'), formBody, NOW, url)).toBe(false);
    expect(verifier({ type: 'twilio' }).verify(headers(getExpectedTwilioSignature(SHARED, url, params, 'HMAC_SHA256'), 'algorithm=HMAC_SHA256'), formBody, NOW, url)).toBe(false);
    expect(check.verify(headers(getExpectedTwilioSignature(SHARED, url, params, 'HMAC_SHA256'), 'algorithm=HMAC_SHA512'), formBody, NOW, url)).toBe(false);
  });
});

describe('shopify Events: the unprefixed Shopify-Hmac-Sha256', () => {
  it('is read as X-Shopify-Hmac-Sha256 is', () => {
    const check = verifier({ type: 'shopify' });
    expect(check.verify({ 'shopify-hmac-sha256': mac('sha256', body).toString('base64') }, body, NOW)).toBe(true);
    expect(check.verify({ 'shopify-hmac-sha256': mac('sha256', body, 'another').toString('base64') }, body, NOW)).toBe(false);
  });
});

describe('shared-secret and basic', () => {
  it("shared-secret: Cloudflare's cf-webhook-auth equal to the secret", () => {
    const check = verifier({ type: 'shared-secret', header: 'cf-webhook-auth' });
    expect(check.verify({ 'cf-webhook-auth': SECRET }, body, NOW)).toBe(true);
    expect(check.verify({ 'cf-webhook-auth': `${SECRET}x` }, body, NOW)).toBe(false);
    expect(check.verify({ authorization: `Bearer ${SECRET}` }, body, NOW)).toBe(false);
    expect(check.failure({}, NOW)).toBe('missing signature');
  });

  it('basic: the user and the password, both', () => {
    const check = verifier({ type: 'basic', username: 'zendesk' });
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    expect(check.verify(basic('zendesk', SECRET), body, NOW)).toBe(true);
    expect(check.verify(basic('zendesk', `${SECRET}x`), body, NOW)).toBe(false);
    expect(check.verify(basic('other', SECRET), body, NOW)).toBe(false);
    expect(check.verify({ authorization: `Bearer ${SECRET}` }, body, NOW)).toBe(false);
    expect(check.failure({}, NOW)).toBe('missing signature');
    expect(check.failure(basic('zendesk', 'wrong'), NOW)).toBe('bad signature');
  });
});

describe('config faults name the field', () => {
  it.each([
    [{ type: 'hmac-sha1', secret: 's' }, 'header: hmac-sha1 needs the header that carries the digest'],
    [{ type: 'shared-secret', secret: 's' }, 'header: shared-secret needs the header that carries the secret'],
    [{ type: 'github', secret: 's', header: 'x-sig' }, 'header: only for type hmac-sha256 or hmac-sha1 or shared-secret (not github)'],
    [{ type: 'github', secret: 's', encoding: 'base64' }, 'encoding: only for type hmac-sha256 or hmac-sha1 (not github)'],
    [{ type: 'ed25519' }, "publicKey: ed25519 needs the sender's public key (hex), e.g. the Discord application's Public Key"],
    [{ type: 'ed25519', publicKey: 'ab'.repeat(32), secret: 's' }, 'secret: ed25519 verifies with publicKey, not a secret'],
    [{ type: 'zoom' }, 'secret: required for type zoom'],
    [{ type: 'basic', secret: 's' }, 'username: basic needs the user name the sender sends'],
    [{ type: 'github', secret: 's', username: 'u' }, 'username: only for type basic (not github)'],
    [{ type: 'twilio' }, "secret: twilio needs the auth token (secret), or a Webhook Setting's sharedKey"],
    [{ type: 'github', secret: 's', sharedKey: 'k' }, 'sharedKey: only for type twilio (not github)'],
    [{ type: 'hmac-sha256', header: 'x', secret: 's', toleranceSeconds: 60 }, 'toleranceSeconds: hmac-sha256 signs no timestamp'],
    [{ type: 'shared-secret', header: 'x', secret: 's', toleranceSeconds: 60 }, 'toleranceSeconds: shared-secret signs no timestamp'],
    [{ type: 'paypal' }, "webhookId: paypal needs the listener's Webhook ID from PayPal's dashboard (letters and digits)"],
    [{ type: 'paypal', webhookId: 'WH1', secret: 's' }, "secret: paypal verifies with PayPal's certificate and webhookId, not a secret"],
    [{ type: 'paypal', webhookId: 'WH1', toleranceSeconds: 60 }, 'toleranceSeconds: paypal signs no timestamp'],
    [{ type: 'github', secret: 's', webhookId: 'WH1' }, 'webhookId: only for type paypal (not github)'],
    [{ type: 'github', secret: 's', certUrls: ['https://api.paypal.com/'] }, 'certUrls: only for type paypal (not github)'],
    [{ type: 'github', secret: 's', certRoots: '-----BEGIN CERTIFICATE-----' }, 'certRoots: only for type paypal (not github)'],
  ])('%j', (auth, message) => {
    expect(fault(auth)).toBe(message);
  });

  it('the schema refuses a public key that is not 32 bytes of hex, naming it', () => {
    const parsed = mappingAuthSchema.safeParse({ type: 'ed25519', publicKey: 'not-hex' });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]).toMatchObject({ path: ['publicKey'], message: 'a hex Ed25519 public key (64 hex digits)' });
  });
});

describe('paypal: the certificate URL is decided before anything is fetched', () => {
  it.each([
    // the URL of PayPal's own SDK sample (PayPal-Java-SDK, rest-api-sample ValidateCert.java)
    ['https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77', true],
    ['https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270', true],
    ['https://api-m.paypal.com/v1/notifications/certs/CERT-1', true],
    ['https://api-m.sandbox.paypal.com/v1/notifications/certs/CERT-1', true],
    ['https://paypal.com/cert', false],
    ['https://www.paypal.com/v1/notifications/certs/CERT-1', false],
    ['https://api.paypal.com/v1/other/CERT-1', false],
    ['https://api.paypal.com/v1/notifications/certs/CERT-1?x=1', false],
    ['http://api.paypal.com/v1/notifications/certs/CERT-1', false],
    ['https://api.paypal.com:8443/v1/notifications/certs/CERT-1', false],
    ['https://api.paypal.com.evil.example/v1/notifications/certs/CERT-1', false],
    ['https://evilpaypal.com/cert', false],
    ['https://user:pw@api.paypal.com/v1/notifications/certs/CERT-1', false],
    ['not a url', false],
  ])('%s: %s by default', (url, allowed) => {
    expect(allowedCertUrl(url, undefined)).toBe(allowed);
  });

  it('with certUrls, only the same scheme, host and port under the path', () => {
    const prefixes = ['http://127.0.0.1:4010/v1/notifications/certs/'];
    expect(allowedCertUrl('http://127.0.0.1:4010/v1/notifications/certs/CERT-1', prefixes)).toBe(true);
    expect(allowedCertUrl('http://127.0.0.1:4011/v1/notifications/certs/CERT-1', prefixes)).toBe(false);
    expect(allowedCertUrl('http://127.0.0.1:4010/v1/other/CERT-1', prefixes)).toBe(false);
    expect(allowedCertUrl('https://api.paypal.com/v1/notifications/certs/CERT-1', prefixes)).toBe(false);
  });

  it("a refused URL answers false at once, with no fetch, and the body's CRC32 is zlib's", async () => {
    const check = compileSignatureVerifier(mappingAuthSchema.parse({ type: 'paypal', webhookId: 'WH1', certUrls: ['http://127.0.0.1:9/certs/'] }));
    const headers = { 'paypal-transmission-id': 't1', 'paypal-transmission-time': '2026-11-24T18:00:00Z', 'paypal-transmission-sig': 'c2ln', 'paypal-auth-algo': 'SHA256withRSA', 'paypal-cert-url': 'https://api.paypal.com/certs/CERT-1' };
    expect(await check.verify(headers, body, NOW)).toBe('certificate URL not allowed');
    expect(await check.verify({ ...headers, 'paypal-auth-algo': 'SHA1withRSA', 'paypal-cert-url': 'http://127.0.0.1:9/certs/CERT-1' }, body, NOW)).toBe(false);
    expect(check.failure({ ...headers, 'paypal-transmission-sig': undefined }, NOW)).toBe('missing signature');
    expect(crc32(body)).toBe(zlib.crc32(body));
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });
});
