import { verify as verifySignature } from 'node:crypto';
import { crc32 } from '../../utils/crc32.js';
import type { SignatureVerifier } from './verifier.js';
import { missingOr } from './signature-digest.js';
import { allowedCertUrl, PaypalCertCache } from './paypal-certs.js';
import { certTrust, CertRefused } from './paypal-cert-trust.js';

const ID = 'paypal-transmission-id';
const TIME = 'paypal-transmission-time';
const SIG = 'paypal-transmission-sig';
const CERT_URL = 'paypal-cert-url';
const ALGO = 'paypal-auth-algo';

/** one cache per trust for the process: every mapping of a PayPal path (and every path) trusting the same roots shares PayPal's certificates */
const caches = new Map<string, PaypalCertCache>();
function cacheFor(certRoots: string | undefined): PaypalCertCache {
  const trust = certTrust(certRoots);
  let cache = caches.get(trust.key);
  if (!cache) caches.set(trust.key, (cache = new PaypalCertCache(trust)));
  return cache;
}

/**
 * PayPal webhooks, verified offline (https://developer.paypal.com/api/rest/webhooks/rest/#link-selfverificationmethod):
 * PAYPAL-TRANSMISSION-SIG is the base64 SHA256withRSA signature of
 * `<PAYPAL-TRANSMISSION-ID>|<PAYPAL-TRANSMISSION-TIME>|<webhook id>|<CRC32 of the raw body, decimal>`,
 * by the key of the certificate at PAYPAL-CERT-URL. The webhook id is the listener's own (from
 * PayPal's developer dashboard): a delivery made for another listener does not verify here.
 * The certificate URL must be PayPal's (`allowedCertUrl`) before anything is fetched, and the
 * certificate PayPal's own, valid now and chained to a trusted root (`paypalSigningCert`); a
 * refusal's reason (`certificate ...`) is what the receipt and the log say. PayPal's
 * SDKs check no time window (PayPal retries a delivery for three days), and neither does herald:
 * the transmission time is bound by the signature, a repeat by the event id.
 */
export function compilePaypal(webhookId: string | undefined, certUrls: readonly string[] | undefined, certRoots?: string): SignatureVerifier {
  if (webhookId === undefined || !/^[A-Za-z0-9]{1,50}$/.test(webhookId)) throw new Error("webhookId: paypal needs the listener's Webhook ID from PayPal's dashboard (letters and digits)");
  const cache = cacheFor(certRoots);
  return {
    type: 'paypal',
    async verify(headers, body, nowMs) {
      const id = headers[ID]?.trim();
      const time = headers[TIME]?.trim();
      const signature = headers[SIG]?.trim();
      const url = headers[CERT_URL]?.trim();
      if (!id || !time || !signature || !/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
      if (headers[ALGO]?.trim() !== 'SHA256withRSA') return false;
      if (!allowedCertUrl(url, certUrls)) return 'certificate URL not allowed';
      let key;
      try {
        key = await cache.key(url!, nowMs);
      } catch (error) {
        return error instanceof CertRefused ? error.reason : 'certificate unavailable';
      }
      const message = `${id}|${time}|${webhookId}|${crc32(body)}`;
      return verifySignature('sha256', Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64'));
    },
    failure(headers) {
      const missing = missingOr(headers[ID]) ?? missingOr(headers[TIME]) ?? missingOr(headers[SIG]) ?? missingOr(headers[CERT_URL]);
      return missing ?? 'bad signature';
    },
  };
}
