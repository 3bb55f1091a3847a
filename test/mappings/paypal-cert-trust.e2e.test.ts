import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certTrust, paypalSigningCert, type CertTrust, type IssuerFetch } from '../../src/mappings/signatures/paypal-cert-trust.js';
import { fakePaypalPki, PAYPAL_SUBJECT, type FakePaypalPki } from '../helpers/fake-paypal-pki.js';

/**
 * PayPal's signing certificate is trusted as PayPal's own SDK trusts it (PayPal-Java-SDK,
 * Event.validateReceivedEvent → SSLUtil.validateCertificateChain): valid now, chained to a trusted
 * root, its CN messageverificationcerts…paypal.com. The PKI is made by openssl for the run.
 */
let pki: FakePaypalPki;
let trust: CertTrust;

beforeAll(() => {
  pki = fakePaypalPki();
  trust = certTrust(pki.root.pem);
});
afterAll(() => pki?.remove());

const refusal = async (pem: string, t: CertTrust, nowMs = Date.now(), fetchIssuer?: IssuerFetch) => {
  try {
    await paypalSigningCert(pem, t, nowMs, fetchIssuer);
    return 'trusted';
  } catch (error) {
    return (error as { reason?: string }).reason ?? String(error);
  }
};

describe("PayPal's signing certificate", () => {
  it('is trusted when served with its intermediate, chained to the configured root', async () => {
    const leaf = pki.leaf(PAYPAL_SUBJECT);
    expect(await refusal(leaf.pem + pki.intermediate.pem, trust)).toBe('trusted');
    expect((await paypalSigningCert(leaf.pem + pki.intermediate.pem, trust, Date.now())).subject).toContain('CN=messageverificationcerts.paypal.com');
  });

  it("the sandbox name is PayPal's too", async () => {
    const leaf = pki.leaf('/O=PayPal, Inc./CN=messageverificationcerts.sandbox.paypal.com');
    expect(await refusal(leaf.pem + pki.intermediate.pem, trust)).toBe('trusted');
  });

  it('is refused without the intermediate that links it to the root', async () => {
    expect(await refusal(pki.leaf(PAYPAL_SUBJECT).pem, trust)).toBe('certificate not trusted');
  });

  it('served alone, is completed from its CA Issuers URL (DER, as RFC 5280 says), and trusted only if what came chains to the root', async () => {
    const url = 'http://cacerts.example.test/HeraldTestIntermediate.crt';
    const leaf = pki.leaf(PAYPAL_SUBJECT, url);
    const asked: string[] = [];
    const fetchIssuer: IssuerFetch = async (u) => (asked.push(u), pki.intermediateDer);
    expect(await refusal(leaf.pem, trust, Date.now(), fetchIssuer)).toBe('trusted');
    expect(asked).toEqual([url]);
    // a CA that is not under the root, handed back from the URL, vouches for nothing
    const stranger = fakePaypalPki();
    try {
      expect(await refusal(leaf.pem, trust, Date.now(), async () => stranger.intermediateDer)).toBe('certificate not trusted');
      expect(await refusal(leaf.pem, trust, Date.now(), async () => Buffer.from('not a certificate'))).toBe('certificate not trusted');
    } finally {
      stranger.remove();
    }
  });

  it("is refused self-signed in PayPal's name: anyone can make one", async () => {
    const forged = pki.selfSigned(PAYPAL_SUBJECT);
    expect(await refusal(forged.pem, trust)).toBe('certificate not trusted');
    // the forger serving the real intermediate beside it changes nothing
    expect(await refusal(forged.pem + pki.intermediate.pem, trust)).toBe('certificate not trusted');
  });

  it("is refused under Node's root store when our test root made it", async () => {
    const leaf = pki.leaf(PAYPAL_SUBJECT);
    expect(await refusal(leaf.pem + pki.intermediate.pem, certTrust(undefined))).toBe('certificate not trusted');
  });

  it("is refused when chained but issued to another name", async () => {
    for (const subject of ['/O=Example/CN=certs.example.com', '/CN=messageverificationcerts.paypal.com.evil.example', '/CN=api.paypal.com']) {
      expect(await refusal(pki.leaf(subject).pem + pki.intermediate.pem, trust)).toBe("certificate subject not PayPal's");
    }
  });

  it('is refused before it is valid and after it expires', async () => {
    const leaf = pki.leaf(PAYPAL_SUBJECT);
    const cert = new X509Certificate(leaf.pem);
    expect(await refusal(leaf.pem + pki.intermediate.pem, trust, Date.parse(cert.validTo) + 1000)).toBe('certificate expired');
    expect(await refusal(leaf.pem + pki.intermediate.pem, trust, Date.parse(cert.validFrom) - 1000)).toBe('certificate expired');
  });

  it('is refused when what was served is no certificate', async () => {
    expect(await refusal('<html>not found</html>', trust)).toBe('certificate unavailable');
    expect(await refusal('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n', trust)).toBe('certificate unavailable');
  });

  it('certRoots without a certificate is a config fault', async () => {
    expect(() => certTrust('no pem here')).toThrow('certRoots: no PEM certificate in it');
  });
});
