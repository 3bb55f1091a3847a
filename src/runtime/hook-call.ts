import type { CompiledMapping } from '../mappings/compiled-mapping.js';
import type { HookResponse } from '../mappings/compile-respond.js';
import type { HookRequest } from '../mappings/hook-request.js';
import type { MappingFailure } from '../mappings/mapping-failure.js';
import type { DispatchResult } from './dispatch-action.js';

/** One authenticated webhook call, parsed: what the intake needs of it. */
export interface IntakeCall {
  request: HookRequest;
  /** the raw body: "the same request" for an Idempotency-Key is the same path and bytes */
  body: Uint8Array;
  /** the caller's `Idempotency-Key`, already checked for shape */
  idempotencyKey?: string;
  /** the mappings whose signature admitted the call (no hook token was presented) */
  signedBy?: readonly CompiledMapping[];
  /** told the matched mapping's id as soon as it is known, also when a later step fails (logs, metrics) */
  onMatch?: (mappingId: string) => void;
}

/**
 * What became of a call the intake accepted; refusals are thrown as HeraldErrors. `idempotencyKey`:
 * the key the call was processed under (the header's or the mapping's); `eventId`: the system
 * event a wake added (the request's receipt records both).
 */
export type HookOutcome = (
  /** a wake (200) or a queued agent run (202) */
  | { type: 'dispatched'; status: DispatchResult['status']; body: DispatchResult['body']; replayed: boolean }
  /** the mapping's transform skipped the call (204) */
  | { type: 'skipped'; status: 204; body: null; replayed: boolean }
  /** the mapping answered itself (`respond`): a handshake, or its run's reply (or fallback); `runId` when a run started */
  | { type: 'responded'; status: number; response: HookResponse; runId?: string; replayed: boolean }
) & { idempotencyKey?: string; eventId?: number; failure?: MappingFailure; errorCode?: string; tool?: true };
