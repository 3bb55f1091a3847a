import type { MappingAuth } from '../../config/sections/mapping-schema.js';
import { BoundedMemo } from '../../utils/bounded-memo.js';
import { compileSignatureVerifier } from './signature-verifier.js';
import type { SignatureVerifier } from './verifier.js';

/**
 * One verifier per distinct `auth`: the mappings of one sender's path declare the same auth (a
 * preset's ten mappings of /hooks/github), and a request is checked once per verifier, not once
 * per mapping (http/hooks/signature-auth.ts), where each check is an HMAC of the whole body.
 * Keyed by the auth as written; a verifier holds no state of a request.
 */
const verifiers = new BoundedMemo<string, SignatureVerifier>(256);

export function sharedSignatureVerifier(auth: MappingAuth): SignatureVerifier {
  return verifiers.get(JSON.stringify(auth), () => compileSignatureVerifier(auth));
}
