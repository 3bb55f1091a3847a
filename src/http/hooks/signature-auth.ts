import { HeraldError } from '../../errors.js';
import type { CompiledMapping } from '../../mappings/compiled-mapping.js';
import { withFailure } from '../../mappings/mapping-failure.js';
import type { SignatureFailure } from '../../mappings/signatures/signature-digest.js';
import type { SignatureVerifier } from '../../mappings/signatures/verifier.js';
import { safeEqual } from '../../utils/constant-time.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limiter.js';
import type { Requester } from '../auth/requester.js';
import type { TokenForm } from './hook-token.js';

/**
 * The mappings whose `auth` decides a request: all of its path's signed mappings when it presents
 * no hook token; when its Authorization is Basic, those of type `basic`; when it presents a
 * bearer that is not the hook token, those of type `bearer` (their credential is that very
 * header, e.g. Alertmanager's own token); otherwise none, and the token decides.
 */
export function signatureCandidates(
  signed: readonly CompiledMapping[],
  presented: { token: string; form: TokenForm } | undefined,
  hookToken: string | undefined,
  authorization?: string,
): readonly CompiledMapping[] {
  if (!presented) return signed;
  // a Basic header is never the hook token: where the path takes basic auth, that auth decides
  if (presented.form === 'bearer' && authorization !== undefined && /^Basic\s/i.test(authorization.trim())) {
    const basic = signed.filter((m) => m.signature?.type === 'basic');
    if (basic.length) return basic;
  }
  if (presented.form !== 'bearer' || !signed.some((m) => m.signature?.type === 'bearer')) return [];
  if (hookToken !== undefined && safeEqual(presented.token, hookToken)) return [];
  return signed.filter((m) => m.signature?.type === 'bearer');
}

/**
 * A request without the hook token, to a path whose mappings declare `auth`: admitted when its
 * signature verifies over the raw body for at least one of them (those are the mappings that may
 * take it), even while the address is limited. Otherwise 401 (429 past the limit), counted
 * against the address on this path only (a sender whose secret is wrong locks out its own path,
 * not the others), with the reason logged. Asynchronous: a scheme may fetch its key first, which
 * holds only this request.
 */
export async function admitBySignature(
  who: Requester,
  limiter: FailedAuthLimiter,
  path: string,
  signed: readonly CompiledMapping[],
  headers: Record<string, string>,
  body: Uint8Array,
  /** the URL as received, query included: Twilio signs it (behind a TLS proxy, a mapping's auth.url says the public one) */
  url: string,
  nowMs = Date.now(),
): Promise<CompiledMapping[]> {
  // a scheme that fetches its key (PayPal's certificate) answers later; the others at once. Each
  // verifier once: the mappings of a path share theirs (a preset's ten, signatures/shared-verifier.ts)
  const verdicts = signed.length === 1 ? [verdictOf(signed[0]!.signature)] : verdictsOnce(signed);
  const settled = verdicts.some((v) => v instanceof Promise) ? await Promise.all(verdicts) : (verdicts as boolean[]);
  const admitted = signed.filter((_m, i) => settled[i] === true);
  if (!admitted.length) {
    // a scheme that fetched its key says why it was refused (PayPal's certificate); the others are asked
    const at = settled.findIndex((v) => typeof v === 'string');
    const refused = signed[Math.max(at, 0)];
    const reason = at >= 0 ? (settled[at] as SignatureFailure) : (refused?.signature?.failure?.(headers, nowMs, body) ?? 'bad signature');
    limiter.failed(who, reason, path);
    const error = new HeraldError('HERALD_UNAUTHORIZED');
    // the receipt says why (a reason, never a value of the request)
    throw refused ? withFailure(error, { stage: 'auth', mappingId: refused.id, cause: reason }) : error;
  }
  limiter.succeeded(who, path);
  return admitted;

  function verdictOf(verifier: SignatureVerifier | undefined): Verdict {
    return verifier?.verify(headers, body, nowMs, url) ?? false;
  }

  function verdictsOnce(mappings: readonly CompiledMapping[]): Verdict[] {
    const checked = new Map<SignatureVerifier | undefined, Verdict>();
    return mappings.map((m) => {
      let verdict = checked.get(m.signature);
      if (verdict === undefined) checked.set(m.signature, (verdict = verdictOf(m.signature)));
      return verdict;
    });
  }
}

type Verdict = ReturnType<SignatureVerifier['verify']>;
