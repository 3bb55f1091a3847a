import type { HeraldError } from '../errors.js';
import type { MappingTraffic } from '../config/sections/traffic-schema.js';
import type { HookAction } from './hook-action.js';
import type { HookRequest } from './hook-request.js';
import type { SignatureVerifier } from './signatures/verifier.js';
import type { CompiledRespond, HookResponse } from './compile-respond.js';
import type { RouteKey } from './routing/route-key.js';

/** The result of applying a mapping: an action, or a handled-and-skipped request (204). */
export type MappingOutcome =
  | { type: 'action'; action: HookAction }
  | { type: 'skip' }
  /** a handshake (`respond.when`): answered as the mapping says, no run */
  | { type: 'respond'; response: HookResponse }
  /**
   * a `forEach` mapping: one action per item (items its transform skipped left out); `indexes`:
   * each action's item index; `refused`: the items whose action was refused, with why
   */
  | { type: 'actions'; actions: HookAction[]; indexes?: number[]; refused?: ItemRefusal[] };

/** a `forEach` item that became no action: its index in the payload's array and the refusal */
export interface ItemRefusal {
  index: number;
  error: HeraldError;
}

/**
 * A request checked and templated by its mapping, not yet transformed: what the hook route needs
 * to claim the mapping's idempotency key before anything with side effects (the transform, the
 * dispatch) happens.
 */
export interface PreparedMapping {
  /** the rendered `idempotencyKey`, when the mapping has one and it rendered non-empty */
  idempotencyKey?: string;
  /** runs the rest: transform, then validation of the action (at once when there is nothing to wait for: the built-ins) */
  run(): MappingOutcome | Promise<MappingOutcome>;
  /** `run` has no effects (no transform): it may be worked out before the idempotency key is claimed */
  pure?: true;
  /** the mapping answers with the run's reply, awaited up to `waitMs` (or its fallback): rendered over this request */
  /** `/agent` with `waitForCompletion: true`: the answer waits for the run and carries its `completion` */
  waitForCompletion?: boolean;
  reply?: { waitMs: number; declared: Record<string, unknown>; render(reply: string): Promise<HookResponse>; fallback(): Promise<HookResponse | undefined> };
}

/** A mapping after load: everything compiled, ready to apply per request. */
export interface CompiledMapping {
  id: string;
  /** `match.path`, slashes trimmed, when the mapping has one */
  path?: string;
  /** the compiled `auth`: a request to `path` may prove itself with this signature instead of the hook token */
  signature?: SignatureVerifier;
  /** what the mapping turns a request into, and its payload `schema`: for the OpenAPI document */
  action?: 'wake' | 'agent' | 'tool' | 'skip';
  schema?: Record<string, unknown>;
  /** where it was declared: `hooks.mappings[0]`, `mappings/github.yaml[1]`, `preset gmail`, `built-in` */
  origin?: string;
  /** the mapping as declared (validated), for the operator's view; never holds a resolved secret once shown (see mappingView) */
  definition?: Record<string, unknown>;
  /** the compiled `respond`: a handshake, or a reply awaited up to waitMs */
  respond?: CompiledRespond;
  /** the mapping's own `retainPayloads`, when it sets one: all, none, or a sample kept some days */
  retainPayloads?: boolean | { sample: number; days?: number };
  /** the body's fields a retained payload keeps `…` in place of (its `retainMasked`) */
  retainMasked?: readonly string[];
  /** its concurrency, rate and coalescing, when it governs its runs' traffic */
  traffic?: MappingTraffic;
  /** an equality every request it takes meets (`match.source`, or one `match.when` needs): the engine's index */
  routeKey?: RouteKey;
  /** does this mapping take the request? (path, source, when) */
  matches(request: HookRequest): boolean | Promise<boolean>;
  /** turns the request into an outcome; per-request faults are thrown as HeraldError */
  apply(request: HookRequest): Promise<MappingOutcome>;
  /** `apply` in two steps (schema and templates, then the rest); mappings without one are applied in one */
  prepare?(request: HookRequest): PreparedMapping | Promise<PreparedMapping>;
}
