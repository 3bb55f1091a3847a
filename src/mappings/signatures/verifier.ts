import type { MappingAuth } from '../../config/sections/mapping-schema.js';
import type { SignatureFailure } from './signature-digest.js';

/** A mapping's `auth`, compiled at load: checks a request's signature over its raw body. */
export interface SignatureVerifier {
  type: MappingAuth['type'];
  /**
   * true when the signature headers (names lower-cased) verify over the exact bytes received;
   * `url`: the full request URL with its query (Twilio and HubSpot sign it). A promise where the
   * key must be fetched first (PayPal's certificate), which may resolve to why the key was refused
   * instead of false; every other scheme answers at once.
   */
  verify(headers: Record<string, string | undefined>, body: Uint8Array, nowMs: number, url?: string): boolean | Promise<boolean | SignatureFailure>;
  /** why `verify` said no, for the log (it never says what was expected); `body` for schemes that sign a timestamp inside it */
  failure(headers: Record<string, string | undefined>, nowMs: number, body?: Uint8Array): SignatureFailure;
}
