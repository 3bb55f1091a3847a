import type { KeyObject } from 'node:crypto';
import { CertRefused, paypalSigningCert, type CertTrust } from './paypal-cert-trust.js';

/** PayPal's certificates are a few KiB; anything much larger is not one */
const MAX_CERT_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
/** kept at most this long even when the certificate stays valid longer (PayPal rotates them) */
const MAX_KEEP_MS = 24 * 3_600_000;
/** distinct certificate URLs kept; PayPal signs with one or two at a time */
const MAX_CERTS = 16;

/**
 * The hosts PayPal serves its webhook signing certificates from: the REST API's, live and sandbox
 * (https://developer.paypal.com/api/rest/requests/ names api-m.paypal.com and
 * api-m.sandbox.paypal.com; deliveries carry e.g.
 * https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77, the URL of PayPal's
 * own SDK samples, PayPal-Java-SDK's ValidateCert.java).
 */
export const PAYPAL_CERT_HOSTS: readonly string[] = ['api.paypal.com', 'api.sandbox.paypal.com', 'api-m.paypal.com', 'api-m.sandbox.paypal.com'];
const CERT_PATH = '/v1/notifications/certs/';

/**
 * Whether `url` may be fetched as PayPal's signing certificate: with no `prefixes`, an https URL
 * on one of PAYPAL_CERT_HOSTS, default port, under /v1/notifications/certs/, no credentials, query
 * or fragment; with `prefixes` (a fake PayPal in tests only), a URL of the same scheme, host and
 * port as one of them whose path starts with its path. Decided before anything is fetched.
 */
export function allowedCertUrl(value: string | undefined, prefixes: readonly string[] | undefined): boolean {
  let url: URL;
  try {
    url = new URL(value ?? '');
  } catch {
    return false;
  }
  if (url.username || url.password || url.search || url.hash) return false;
  if (!prefixes?.length) return url.protocol === 'https:' && url.port === '' && PAYPAL_CERT_HOSTS.includes(url.hostname) && url.pathname.startsWith(CERT_PATH);
  return prefixes.some((p) => {
    const prefix = new URL(p);
    return url.protocol === prefix.protocol && url.host === prefix.host && url.pathname.startsWith(prefix.pathname);
  });
}

interface Held {
  key: Promise<KeyObject>;
  expiresAt: number;
}

/**
 * PayPal's signing certificates by URL, each checked against one trust (paypal-cert-trust.ts):
 * fetched once (concurrent requests for one URL share the fetch), each request bounded in time and
 * size and never redirected (a redirect could leave the allowed host), kept while valid and at
 * most a day, at most MAX_CERTS of them. A fetch or a certificate that fails is not kept, so the
 * next request tries again. The fetch is asynchronous: a slow PayPal delays only the requests that
 * need that certificate. Rejects with CertRefused.
 */
export class PaypalCertCache {
  private readonly held = new Map<string, Held>();
  /** CA certificates fetched from a CA Issuers URL, by URL: PayPal's intermediates change rarely */
  private readonly issuers = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly trust: CertTrust,
    private readonly timeoutMs = FETCH_TIMEOUT_MS,
  ) {}

  key(url: string, nowMs: number): Promise<KeyObject> {
    const found = this.held.get(url);
    if (found && found.expiresAt > nowMs) return found.key;
    if (found) this.held.delete(url);
    // in flight it is shared by every request that needs it; once made it is kept until keepUntil says
    const entry: Held = { key: this.fetchKey(url, nowMs, (expiresAt) => (entry.expiresAt = expiresAt)), expiresAt: Infinity };
    entry.key.catch(() => {
      if (this.held.get(url) === entry) this.held.delete(url);
    });
    // the oldest out when full (a Map keeps insertion order)
    if (this.held.size >= MAX_CERTS) this.held.delete(this.held.keys().next().value!);
    this.held.set(url, entry);
    return entry.key;
  }

  /** a CA Issuers URL's bytes, bounded like the certificate's fetch, kept (MAX_CERTS at most) unless it failed */
  private issuer(url: string): Promise<Uint8Array> {
    const found = this.issuers.get(url);
    if (found) return found;
    const bytes = (async () => {
      const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(this.timeoutMs) });
      if (!res.ok) throw new Error(`CA certificate answered ${res.status}`);
      return boundedBody(res);
    })();
    bytes.catch(() => {
      if (this.issuers.get(url) === bytes) this.issuers.delete(url);
    });
    if (this.issuers.size >= MAX_CERTS) this.issuers.delete(this.issuers.keys().next().value!);
    this.issuers.set(url, bytes);
    return bytes;
  }

  private async fetchKey(url: string, nowMs: number, keepUntil: (ms: number) => void): Promise<KeyObject> {
    let pem: string;
    try {
      const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(this.timeoutMs) });
      if (!res.ok) throw new Error(`certificate answered ${res.status}`);
      pem = (await boundedBody(res)).toString('utf8');
    } catch {
      throw new CertRefused('certificate unavailable');
    }
    const cert = await paypalSigningCert(pem, this.trust, nowMs, (issuer) => this.issuer(issuer));
    keepUntil(Math.min(Date.parse(cert.validTo), nowMs + MAX_KEEP_MS));
    return cert.publicKey;
  }
}

/** the answer's bytes, refused past MAX_CERT_BYTES without reading the rest */
async function boundedBody(res: Response): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > MAX_CERT_BYTES) {
      await reader.cancel();
      throw new Error('certificate too large');
    }
    chunks.push(value);
  }
}
