import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, GATEWAY_TOKEN } from '../../helpers/start-herald.js';
import { fakePaypalPki, PAYPAL_SUBJECT, type FakePaypalPki } from '../../helpers/fake-paypal-pki.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-server.js';
import { testApp, type TestApp } from '../../http/app-fixture.js';
import { fakeModel, startFakeOpenAI } from '../../models/fake-openai.js';

/**
 * The PayPal preset live: herald verifies each delivery offline as PayPal documents
 * (https://developer.paypal.com/api/rest/webhooks/rest/#link-selfverificationmethod): the
 * certificate at PAYPAL-CERT-URL, served here by a fake of PayPal's certificate endpoint
 * (`/v1/notifications/certs/CERT-...`, PEM X.509 certificates) on 127.0.0.1, which `certUrls`
 * allows (tests only). It serves a certificate issued to PayPal's name by an intermediate CA,
 * followed by that intermediate, both made by openssl for this run under a root CA that
 * `certRoots` trusts (tests only; herald trusts Node's root store otherwise); the leaf's key signs
 * `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the body, decimal>` with
 * SHA256withRSA, base64 in PAYPAL-TRANSMISSION-SIG. It also serves what an attacker would: a
 * self-signed certificate in PayPal's name, and one chained but issued to another name.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const WEBHOOK_ID = '8PT597110X687430L';
const CERT_PATH = '/v1/notifications/certs/';

let pki: FakePaypalPki;
/** what the fake serves at each certificate name */
const served = new Map<string, string>();
let privateKey: KeyObject;
const admin = { authorization: `Bearer ${GATEWAY_TOKEN}` };
let certs: FakeServer;
let model: FakeServer;
let herald: TestApp;
/** a certificate request the test holds open, released by the test */
let held: { url: string; release: () => void } | undefined;
let signingKeys: { forged: KeyObject; stranger: KeyObject; alone: KeyObject };

const fixtures = JSON.parse(fs.readFileSync(path.join(root, 'plugins/paypal/fixtures/paypal.json'), 'utf8')) as { payload: Record<string, unknown> }[];

/** a fixture's payload as PayPal sends it, signed by `key` for `webhookId` */
function delivery(index: number, options: { certUrl?: string; webhookId?: string; key?: KeyObject; transmissionId?: string; requestId?: string } = {}) {
  const body = JSON.stringify(fixtures[index]!.payload);
  const transmissionId = options.transmissionId ?? `${index}-${Math.random().toString(16).slice(2)}-11f0-9a0c-27e2bb0b4b3e`;
  const time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const message = `${transmissionId}|${time}|${options.webhookId ?? WEBHOOK_ID}|${zlib.crc32(Buffer.from(body))}`;
  const signature = sign('sha256', Buffer.from(message), options.key ?? privateKey).toString('base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-time': time,
      'paypal-transmission-sig': signature,
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': options.certUrl ?? `${certs.url}${CERT_PATH}CERT-360caa42-fca2a594-a5cafa77`,
      ...(options.requestId && { 'x-request-id': options.requestId }),
    },
  };
}

async function post({ body, headers }: { body: string; headers: Record<string, string> }) {
  const res = await herald.request('/hooks/paypal', { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: text.startsWith('{') ? (JSON.parse(text) as Record<string, any>) : null };
}

const certFetches = (name: string) => certs.requests.filter((r) => r.path === `${CERT_PATH}${name}`).length;

beforeAll(async () => {
  pki = fakePaypalPki();
  const paypal = pki.leaf(PAYPAL_SUBJECT);
  privateKey = paypal.key;
  served.set('CERT-360caa42-fca2a594-a5cafa77', paypal.pem + pki.intermediate.pem);
  const forged = pki.selfSigned(PAYPAL_SUBJECT);
  served.set('CERT-forged-0001', forged.pem);
  const stranger = pki.leaf('/O=Example/CN=certs.example.com');
  served.set('CERT-stranger-0001', stranger.pem + pki.intermediate.pem);
  certs = await startFakeServer(async (req) => {
    const name = req.path.slice(CERT_PATH.length);
    // the intermediate at the CA Issuers URL a certificate served alone names, DER as RFC 5280 4.2.2.1 says (DigiCert's cacerts.digicert.com for PayPal's)
    if (req.path === '/ca/intermediate.crt') return { headers: { 'content-type': 'application/pkix-cert' }, body: pki.intermediateDer };
    if (!req.path.startsWith(`${CERT_PATH}CERT-`)) return { status: 404, body: { name: 'RESOURCE_NOT_FOUND' } };
    if (held && req.path.endsWith(held.url)) await new Promise<void>((resolve) => (held!.release = resolve));
    return { headers: { 'content-type': 'application/x-pem-file' }, body: served.get(name) ?? served.get('CERT-360caa42-fca2a594-a5cafa77')! };
  });
  // PayPal's certificate served alone, naming where its issuer is
  const alone = pki.leaf(PAYPAL_SUBJECT, `${certs.url}/ca/intermediate.crt`);
  served.set('CERT-alone-0001', alone.pem);
  signingKeys = { forged: forged.key, stranger: stranger.key, alone: alone.key };
  model = await startFakeOpenAI('on it');
  herald = await testApp({
    ...fakeModel(model),
    hooks: { presets: [{ name: 'paypal', webhookId: WEBHOOK_ID, certUrls: [`${certs.url}${CERT_PATH}`], certRoots: pki.root.pem, deliver: false }] },
  });
});

afterAll(async () => {
  await herald?.stop();
  await model?.close();
  await certs?.close();
  pki?.remove();
});

/** the receipt of the request sent with `requestId`, as the admin API shows it */
async function receipt(requestId: string) {
  return eventually(async () => {
    const { data } = (await (await herald.request('/admin/receipts?path=paypal', { headers: admin })).json()) as { data: { requestId: string; status: number; failure: unknown }[] };
    return data.find((r) => r.requestId === requestId);
  });
}

describe('preset paypal, live', () => {
  it('accepts a delivery signed as PayPal signs; its message reaches the model; a repeat is replayed; the certificate is fetched once', async () => {
    const signed = delivery(0);
    const first = await post(signed);
    expect(first).toMatchObject({ status: 202, body: { ok: true, runId: expect.any(String) } });
    const run = await eventually(async () => {
      const found = await herald.gateway.store.runs.get(first.body!.runId);
      return found?.status === 'succeeded' ? found : undefined;
    });
    expect(run.message).toContain('PayPal PAYMENT.CAPTURE.COMPLETED: capture 27M47624FP291604U, 2.51 USD');
    const prompts = model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.stringify(r.json.messages));
    expect(prompts.some((p) => p.includes('capture 27M47624FP291604U'))).toBe(true);
    // PayPal's retry of the event: a new transmission, the same event id
    expect(await post(delivery(0))).toMatchObject({ status: 202, replayed: 'true', body: { runId: first.body!.runId } });
    expect(await post(delivery(3))).toMatchObject({ status: 202 });
    expect(certFetches('CERT-360caa42-fca2a594-a5cafa77')).toBe(1);
  });

  it('refuses a wrong signature, another listener\'s webhook id and another key with 401', async () => {
    const tampered = delivery(1);
    tampered.body = tampered.body.replace('2.51', '25.10');
    expect((await post(tampered)).status).toBe(401);
    expect((await post(delivery(1, { webhookId: 'ANOTHERWEBHOOK1' }))).status).toBe(401);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await post(delivery(1, { key: other }))).status).toBe(401);
    const noSig = delivery(1);
    delete (noSig.headers as Record<string, string>)['paypal-transmission-sig'];
    expect((await post(noSig)).status).toBe(401);
  });

  it('refuses a certificate URL that is not allowed with 401, without fetching it; the receipt says why', async () => {
    const before = certs.requests.length;
    let n = 0;
    for (const certUrl of [`${certs.url}/elsewhere/CERT-1`, `https://api.paypal.com.evil.example${CERT_PATH}CERT-1`, certs.url.replace('127.0.0.1', 'localhost') + `${CERT_PATH}CERT-1`]) {
      const requestId = `paypal-url-${n++}`;
      expect((await post(delivery(2, { certUrl, requestId }))).status).toBe(401);
      // the mapping whose auth refused it is named in the failure; the request is not counted as that mapping's
      expect(await receipt(requestId)).toMatchObject({ status: 401, mappingId: null, failure: { stage: 'auth', mappingId: expect.stringMatching(/^paypal-/), cause: 'certificate URL not allowed' } });
    }
    expect(certs.requests.length).toBe(before);
  });

  it("refuses a certificate in PayPal's name that no trusted root vouches for, and one chained but not PayPal's, each signing its own delivery", async () => {
    const forged = delivery(2, { certUrl: `${certs.url}${CERT_PATH}CERT-forged-0001`, key: signingKeys.forged, requestId: 'paypal-forged' });
    expect((await post(forged)).status).toBe(401);
    const stranger = delivery(2, { certUrl: `${certs.url}${CERT_PATH}CERT-stranger-0001`, key: signingKeys.stranger, requestId: 'paypal-stranger' });
    expect((await post(stranger)).status).toBe(401);
    expect((await receipt('paypal-forged')).failure).toMatchObject({ stage: 'auth', cause: 'certificate not trusted' });
    expect((await receipt('paypal-stranger')).failure).toMatchObject({ stage: 'auth', cause: "certificate subject not PayPal's" });
    // the reason, never a value of the request
    expect(JSON.stringify(await receipt('paypal-forged'))).not.toContain('27M47624FP291604U');
    expect(herald.rawLogs()).toContain('certificate not trusted');
  });

  it('a certificate served without its intermediate is completed from its CA Issuers URL, fetched once', async () => {
    const certUrl = `${certs.url}${CERT_PATH}CERT-alone-0001`;
    expect((await post(delivery(4, { certUrl, key: signingKeys.alone }))).status).toBe(202);
    expect((await post(delivery(5, { certUrl, key: signingKeys.alone }))).status).toBe(202);
    expect(certs.requests.filter((r) => r.path === '/ca/intermediate.crt')).toHaveLength(1);
  });

  it('a certificate PayPal does not serve is 401 and not kept: the next delivery asks again', async () => {
    const certUrl = `${certs.url}${CERT_PATH}missing-0001`;
    expect((await post(delivery(1, { certUrl }))).status).toBe(401);
    expect((await post(delivery(1, { certUrl }))).status).toBe(401);
    expect(certFetches('missing-0001')).toBe(2);
  });

  it('a certificate being fetched holds only the requests that need it', async () => {
    held = { url: 'CERT-held-0001', release: () => {} };
    const waiting = post(delivery(4, { certUrl: `${certs.url}${CERT_PATH}CERT-held-0001` }));
    await eventually(async () => (certFetches('CERT-held-0001') === 1 ? true : undefined));
    // a delivery whose certificate is known goes through while the other waits
    expect((await post(delivery(5))).status).toBe(202);
    held.release();
    expect((await waiting).status).toBe(202);
    held = undefined;
  });

  it('answers what the preset skips with 204', async () => {
    expect((await post(delivery(6))).status).toBe(204);
  });
});
