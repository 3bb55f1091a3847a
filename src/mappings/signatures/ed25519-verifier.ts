import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import type { SignatureVerifier } from './verifier.js';
import { freshTimestamp, missingOr } from './signature-digest.js';

const SIGNATURE = 'x-signature-ed25519';
const TIMESTAMP = 'x-signature-timestamp';

/**
 * Discord interactions (https://discord.com/developers/docs/interactions/overview#setting-up-an-endpoint-validating-security-request-headers):
 * X-Signature-Ed25519 is the hex Ed25519 signature, by the application's key, of
 * X-Signature-Timestamp followed by the raw body; it is checked with the application's public
 * key (hex), by Node's own crypto. Discord states no window for the timestamp and its library
 * (discord-interactions' verifyKey) checks none; herald also refuses one further than
 * `toleranceSeconds` from now, in either direction, so a captured interaction cannot be replayed.
 */
export function compileEd25519(publicKey: string | undefined, toleranceSeconds: number): SignatureVerifier {
  if (publicKey === undefined) throw new Error('publicKey: ed25519 needs the sender\'s public key (hex), e.g. the Discord application\'s Public Key');
  const key = ed25519PublicKey(publicKey);
  return {
    type: 'ed25519',
    verify(headers, body, nowMs) {
      const signature = headers[SIGNATURE]?.trim();
      const timestamp = headers[TIMESTAMP];
      if (!signature || !/^[0-9a-f]{128}$/i.test(signature) || timestamp === undefined || !freshTimestamp(timestamp, nowMs, toleranceSeconds)) return false;
      // the signature is public-key: verification time leaks nothing about a secret
      return verifySignature(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), key, Buffer.from(signature, 'hex'));
    },
    failure(headers, nowMs) {
      const missing = missingOr(headers[SIGNATURE]) ?? missingOr(headers[TIMESTAMP]);
      return missing ?? (freshTimestamp(headers[TIMESTAMP], nowMs, toleranceSeconds) ? 'bad signature' : 'stale timestamp');
    },
  };
}

/** a raw 32-byte Ed25519 public key, as hex, made a KeyObject (JWK: the key's bytes are its `x`) */
function ed25519PublicKey(hex: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
}
