import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mappingAuthSchema } from '../../src/config/sections/mapping-schema.js';
import { bodyFormatOf, parseMultipart, parseUrlEncoded } from '../../src/mappings/payload/form-payload.js';
import { compileSignatureVerifier } from '../../src/mappings/signatures/signature-verifier.js';

/**
 * Bodies that are not JSON: form fields become the payload; signatures are checked over the raw
 * bytes. The parsing and the signatures are functions, called here; form-hooks.e2e.test.ts shows
 * on a gateway that a mapped hook reads its body through them. Twilio's scheme is its documented one
 * (https://www.twilio.com/docs/usage/security#validating-requests), Slack's its v0 signing secret
 * (https://api.slack.com/authentication/verifying-requests-from-slack).
 */
const TWILIO_TOKEN = 'twilio-auth-token-0123456789';
const SLACK_SECRET = 'slack-signing-secret-0123456789';

const twilio = { auth: { type: 'twilio', secret: TWILIO_TOKEN } };
const slack = { auth: { type: 'slack', secret: SLACK_SECRET } };
const bytes = (text: string) => new TextEncoder().encode(text);

describe('form bodies', () => {
  it('is read by its Content-Type: a form, a multipart body, or JSON (anything else)', () => {
    expect(bodyFormatOf('application/x-www-form-urlencoded; charset=utf-8')).toBe('form');
    expect(bodyFormatOf('Multipart/Form-Data; boundary=x')).toBe('multipart');
    expect(['application/json', 'text/plain', undefined].map(bodyFormatOf)).toEqual(['json', 'json', 'json']);
  });

  it('x-www-form-urlencoded fields are the payload; a repeated key is an array', () => {
    expect(parseUrlEncoded('a=1&tag=x&tag=y&text=hello+world%21')).toEqual({ a: '1', tag: ['x', 'y'], text: 'hello world!' });
    // a field named __proto__ is data, never the payload's prototype
    const parsed = parseUrlEncoded('__proto__=p&x=1');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('p');
  });

  it('multipart/form-data: text fields as strings, files as {filename, size, type}, never their bytes', async () => {
    const form = new FormData();
    form.append('subject', 'Invoice');
    form.append('attachment', new Blob(['%PDF-1.4 not really'], { type: 'application/pdf' }), 'invoice.pdf');
    form.append('attachment', new Blob(['hello']), 'note.txt');
    const encoded = new Response(form);
    const body = new Uint8Array(await encoded.arrayBuffer());
    expect(await parseMultipart(body, encoded.headers.get('content-type')!)).toEqual({
      subject: 'Invoice',
      attachment: [
        { filename: 'invoice.pdf', size: 19, type: 'application/pdf' },
        { filename: 'note.txt', size: 5, type: 'application/octet-stream' },
      ],
    });
  });

  it('refuses a broken multipart body, naming its boundary', async () => {
    await expect(parseMultipart(bytes('not multipart'), 'multipart/form-data; boundary=nope')).rejects.toThrow('invalid multipart/form-data body (check its boundary)');
  });
});

/** Twilio's signature: base64 HMAC-SHA1 of the URL, then each sorted field name followed by its value */
function twilioSignature(url: string, body: string): string {
  const params = new URLSearchParams(body);
  const names = [...new Set(params.keys())].sort();
  const text = url + names.map((n) => params.getAll(n).sort().map((v) => n + v).join('')).join('');
  return createHmac('sha1', TWILIO_TOKEN).update(text).digest('base64');
}

describe('Twilio signatures', () => {
  const body = 'MessageSid=SM1&From=%2B15555550123&To=%2B15555550100&Body=Hi+there&MediaUrl0=b&MediaUrl0=a';
  const url = 'http://localhost/hooks/twilio/sms';
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const verify = (auth: Record<string, unknown>, headers: Record<string, string>, payload: string, at = url) =>
    compileSignatureVerifier(mappingAuthSchema.parse(auth)).verify({ ...form, ...headers }, bytes(payload), Date.now(), at);

  it('admits a form signed with the auth token; refuses a wrong or missing signature, a changed field, or another URL', () => {
    expect(verify(twilio.auth, { 'x-twilio-signature': twilioSignature(url, body) }, body)).toBe(true);
    expect(verify(twilio.auth, {}, body)).toBe(false);
    expect(verify(twilio.auth, { 'x-twilio-signature': twilioSignature(url, body) }, body.replace('Hi', 'Ho'))).toBe(false);
    expect(verify(twilio.auth, { 'x-twilio-signature': twilioSignature('https://elsewhere.example/hooks/twilio/sms', body) }, body)).toBe(false);
  });

  it('auth.url: the public URL Twilio signed, when a proxy changes what herald sees', () => {
    const publicUrl = 'https://hooks.example.com/hooks/twilio/sms?tenant=7';
    expect(verify({ ...twilio.auth, url: publicUrl }, { 'x-twilio-signature': twilioSignature(publicUrl, body) }, body)).toBe(true);
  });

  it('a JSON body is signed through the bodySHA256 query parameter', () => {
    const json = JSON.stringify({ From: '+15555550123', Body: 'json' });
    const signedUrl = `${url}?bodySHA256=${createHash('sha256').update(json).digest('hex')}`;
    const headers = { 'content-type': 'application/json', 'x-twilio-signature': createHmac('sha1', TWILIO_TOKEN).update(signedUrl).digest('base64') };
    expect(verify(twilio.auth, headers, json, signedUrl)).toBe(true);
    expect(verify(twilio.auth, headers, json.replace('json', 'JSON'), signedUrl)).toBe(false);
  });
});

describe('Slack signatures', () => {
  const body = 'command=%2Fdeploy&text=api+v2&user_name=ada&team_id=T1';
  const sign = (timestamp: number, payload = body, secret = SLACK_SECRET) => `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${payload}`).digest('hex')}`;
  const verifier = compileSignatureVerifier(mappingAuthSchema.parse(slack.auth));
  const verify = (timestamp: number, signature: string, payload = body) =>
    verifier.verify({ 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature }, bytes(payload), Date.now());

  it('admits a v0 signature within five minutes; refuses an old timestamp, a wrong secret or a changed body', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verify(now, sign(now))).toBe(true);
    expect(verify(now - 301, sign(now - 301))).toBe(false);
    expect(verify(now, sign(now), body.replace('v2', 'v3'))).toBe(false);
    expect(verify(now, sign(now, body, 'another-secret'))).toBe(false);
  });
});
