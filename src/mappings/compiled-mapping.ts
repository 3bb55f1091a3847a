import type { HookAction } from './hook-action.js';
import type { HookRequest } from './hook-request.js';
import type { SignatureVerifier } from './signature-verifier.js';

/** The result of applying a mapping: an action, or a handled-and-skipped request (204). */
export type MappingOutcome = { type: 'action'; action: HookAction } | { type: 'skip' };

/** A mapping after load: everything compiled, ready to apply per request. */
export interface CompiledMapping {
  id: string;
  /** `match.path`, slashes trimmed, when the mapping has one */
  path?: string;
  /** the compiled `auth`: a request to `path` may prove itself with this signature instead of the hook token */
  signature?: SignatureVerifier;
  /** does this mapping take the request? (path, source, when) */
  matches(request: HookRequest): boolean | Promise<boolean>;
  /** turns the request into an outcome; per-request faults are thrown as HeraldError */
  apply(request: HookRequest): Promise<MappingOutcome>;
}
