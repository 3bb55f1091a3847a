import type { ToolCallOptions, ToolResult, ToolSpec } from './tool-spec.js';

/** what becomes of one call the model made: executed, held for a person, or refused with a reason the model is told */
export type CallVerdict = { kind: 'run' } | { kind: 'approve' } | { kind: 'refuse'; reason: string };

/**
 * The tools of one turn, granted by config (tool-policy.ts): what the model is offered, what
 * each call's verdict is, and how a call is made within the turn's limits.
 */
export interface TurnTools {
  readonly specs: readonly ToolSpec[];
  byName(name: string): ToolSpec | undefined;
  verdict(spec: ToolSpec): CallVerdict;
  call(spec: ToolSpec, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult>;
  timeoutMs(spec: ToolSpec): number;
  readonly maxToolCalls: number;
  readonly maxResultChars: number;
}
