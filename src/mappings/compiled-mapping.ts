import type { HookAction } from './hook-action.js';
import type { HookRequest } from './hook-request.js';

/** The result of applying a mapping: an action, or a handled-and-skipped request (204). */
export type MappingOutcome = { type: 'action'; action: HookAction } | { type: 'skip' };

/** A mapping after load: everything compiled, ready to apply per request. */
export interface CompiledMapping {
  id: string;
  /** does this mapping take the request? (path, source, when) */
  matches(request: HookRequest): boolean | Promise<boolean>;
  /** turns the request into an outcome; per-request faults are thrown as HeraldError */
  apply(request: HookRequest): Promise<MappingOutcome>;
}
