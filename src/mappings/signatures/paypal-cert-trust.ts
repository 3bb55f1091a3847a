import { createHash, X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';

/**
 * Why PayPal's certificate was refused: the reason a refused delivery's receipt and log line
 * carry (never a value of the request).
 */
export type CertRefusal = 'certificate URL not allowed' | 'certificate unavailable' | 'certificate expired' | 'certificate not trusted' | "certificate subject not PayPal's";

export class CertRefused extends Error {
  constructor(readonly reason: CertRefusal) {
    super(reason);
  }
}

/** the certificates a PayPal signing certificate must chain to, and a key naming them for the cache */
export interface CertTrust {
  key: string;
  roots: readonly X509Certificate[];
}

/** at most this many certificates between PayPal's and a root (PayPal's chain has one intermediate) */
const MAX_CHAIN = 4;
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

let system: CertTrust | undefined;

/**
 * Node's bundled root store (`tls.rootCertificates`, Mozilla's list), or, for a fake PayPal in
 * tests, the PEM certificates of `certRoots` instead. Parsed once.
 */
export function certTrust(certRoots: string | undefined): CertTrust {
  if (certRoots === undefined) return (system ??= { key: 'system', roots: rootCertificates.map((pem) => new X509Certificate(pem)) });
  const roots = pemCertificates(certRoots);
  if (!roots.length) throw new Error('certRoots: no PEM certificate in it');
  return { key: createHash('sha256').update(certRoots).digest('hex'), roots };
}

export function pemCertificates(text: string): X509Certificate[] {
  return (text.match(PEM_BLOCK) ?? []).map((block) => new X509Certificate(block));
}

/**
 * The subject rule of PayPal's own verifier (PayPal-Java-SDK, `SSLUtil.validateCertificateChain`):
 * a CN that starts with `messageverificationcerts` and ends with `.paypal.com`
 * (messageverificationcerts.paypal.com live, messageverificationcerts.sandbox.paypal.com sandbox).
 */
function isPaypalSubject(cert: X509Certificate): boolean {
  return cert.subject.split('\n').some((rdn) => rdn.startsWith('CN=messageverificationcerts') && rdn.endsWith('.paypal.com'));
}

const validAt = (cert: X509Certificate, nowMs: number) => Date.parse(cert.validFrom) <= nowMs && nowMs <= Date.parse(cert.validTo);

/** `child` was issued and signed by `parent` */
const signedBy = (child: X509Certificate, parent: X509Certificate) => child.checkIssued(parent) && child.verify(parent.publicKey);

/** fetches the bytes (DER or PEM) at a certificate's CA Issuers URL */
export type IssuerFetch = (url: string) => Promise<Uint8Array>;

/** at most this many CA Issuers URLs followed for one certificate */
const MAX_ISSUER_FETCHES = 3;

/** the http(s) CA Issuers URLs of a certificate's Authority Information Access (RFC 5280 4.2.2.1) */
function issuerUrls(cert: X509Certificate): string[] {
  return [...(cert.infoAccess ?? '').matchAll(/CA Issuers - URI:(https?:\/\/\S+)/g)].map((m) => m[1]!);
}

/**
 * PayPal's signing certificate out of the PEM at PAYPAL-CERT-URL, checked as PayPal's Java SDK
 * checks it: valid now, its subject PayPal's, an RSA key, and a chain of CA certificates, each
 * valid now and signed by the next, ending at one signed by a trusted root. The CA certificates
 * are those served after PayPal's own, else fetched from each certificate's CA Issuers URL
 * (`fetchIssuer`), as TLS clients complete a chain a server sent short: what is fetched is
 * trusted only for the signatures it carries up to a root, never for where it came from.
 * Throws CertRefused saying which check failed.
 */
export async function paypalSigningCert(pem: string, trust: CertTrust, nowMs: number, fetchIssuer?: IssuerFetch): Promise<X509Certificate> {
  let certs: X509Certificate[];
  try {
    certs = pemCertificates(pem);
  } catch {
    throw new CertRefused('certificate unavailable');
  }
  const leaf = certs[0];
  if (!leaf) throw new CertRefused('certificate unavailable');
  if (!validAt(leaf, nowMs)) throw new CertRefused('certificate expired');
  if (!isPaypalSubject(leaf) || leaf.publicKey.asymmetricKeyType !== 'rsa') throw new CertRefused("certificate subject not PayPal's");
  const pool = certs.slice(1);
  const issuerOf = (cert: X509Certificate) => pool.find((c) => c !== cert && c.ca && validAt(c, nowMs) && signedBy(cert, c));
  let fetches = 0;
  let current = leaf;
  for (let depth = 0; depth <= MAX_CHAIN; depth++) {
    if (trust.roots.some((root) => validAt(root, nowMs) && signedBy(current, root))) return leaf;
    let next = issuerOf(current);
    for (const url of fetchIssuer && !next ? issuerUrls(current) : []) {
      if (fetches++ >= MAX_ISSUER_FETCHES) break;
      try {
        const bytes = Buffer.from(await fetchIssuer!(url));
        pool.push(...(bytes.includes('-----BEGIN CERTIFICATE-----') ? pemCertificates(bytes.toString('utf8')) : [new X509Certificate(bytes)]));
      } catch {
        continue;
      }
      if ((next = issuerOf(current))) break;
    }
    if (!next) break;
    current = next;
  }
  throw new CertRefused('certificate not trusted');
}
