import { HeraldError } from '../../errors.js';
import type { HookResponse } from '../../mappings/compile-respond.js';
import type { HookAction } from '../../mappings/hook-action.js';
import type { HookRequest } from '../../mappings/hook-request.js';
import type { MappingsEngine } from '../../mappings/mappings-engine.js';
import { runPrompt } from '../run-prompt.js';
import { describeDirectGrant } from '../../tools/direct-call.js';
import { locateTemplateFault, type TemplateFault } from './template-fault.js';

/** What a request would become, touching nothing: the action (and the prompt its model would see), a skip, or the refusal. */
export type DryRunOutcome =
  | { type: 'action'; mappingId: string; action: HookAction; prompt?: string; idempotencyKey?: string; response?: Record<string, unknown>; toolCall?: { tool: string; arguments: Record<string, unknown>; decision: string } }
  | { type: 'respond'; mappingId: string; response: HookResponse }
  | { type: 'skip'; mappingId: string; idempotencyKey?: string }
  | { type: 'error'; mappingId?: string; status: number; code: string; error: string; reason?: string; fault?: TemplateFault; details?: unknown };

/**
 * The dry run of `herald hooks test`: the engine applied to a request (its transform runs), the
 * action neither dispatched nor stored. Per-request faults are outcomes, not exceptions.
 */
export async function dryRun(engine: MappingsEngine, request: HookRequest, now = Date.now()): Promise<DryRunOutcome> {
  let mappingId: string | undefined;
  try {
    const prepared = await engine.prepare(request);
    mappingId = prepared.mappingId;
    const key = prepared.idempotencyKey === undefined ? {} : { idempotencyKey: prepared.idempotencyKey };
    const outcome = await prepared.run();
    if (outcome.type === 'skip') return { type: 'skip', mappingId, ...key };
    if (outcome.type === 'respond') return { type: 'respond', mappingId, response: outcome.response };
    // a forEach mapping's dry run shows its first item's action
    const action = outcome.type === 'actions' ? outcome.actions[0]! : outcome.action;
    const prompt = action.kind === 'agent' ? runPrompt(action, now) : undefined;
    // a direct call: resolved (its arguments rendered, its grant decided), never made
    const call = action.kind === 'tool' ? action.call : undefined;
    const toolCall = call && { tool: call.tool, arguments: call.arguments, decision: describeDirectGrant(call.tool, { outside: call.outside, signed: action.kind === 'tool' && action.signed === true, mapping: action.kind === 'tool' ? action.tools : undefined }) };
    return { type: 'action', mappingId, action, ...(prompt !== undefined && { prompt }), ...(toolCall && { toolCall }), ...key, ...(prepared.reply && { response: prepared.reply.declared }) };
  } catch (error) {
    if (!(error instanceof HeraldError)) throw error;
    const reason = error.cause instanceof Error ? error.cause.message : undefined;
    let fault: TemplateFault | undefined;
    if (reason?.startsWith('template:')) {
      // the mapping failed while preparing, before it was named: the one that matched
      const mapping = await engine.find(request).catch(() => undefined);
      mappingId ??= mapping?.id;
      fault = await locateTemplateFault(mapping?.definition, request, new Date(now));
    }
    return {
      type: 'error',
      ...(mappingId !== undefined && { mappingId }),
      status: error.status,
      code: error.code,
      error: error.message,
      // the mapping's own fault (a template or transform failing): the operator needs the reason the caller never sees
      ...(reason !== undefined && { reason }),
      ...(fault && { fault }),
      ...(error.details !== undefined && { details: error.details }),
    };
  }
}
