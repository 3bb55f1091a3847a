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
  /** the most a call may take in all while the server's progress keeps it alive past timeoutMs; timeoutMs when unset */
  maxCallMs?(spec: ToolSpec): number;
  readonly maxToolCalls: number;
  readonly maxResultChars: number;
  /**
   * Why the tool `name` of `server`, granted to this turn by config, cannot be called now: its
   * server is down, so its tools are not known (a server that never connected since the start
   * lists none). Undefined when the server is up, or the tool is not granted.
   */
  unavailable?(server: string, name: string): string | undefined;
}

/** no tool granted: what the calls of a checkpoint are settled with when their tools are gone (each refused or interrupted, none executed) */
export const NO_TOOLS: TurnTools = {
  specs: [],
  byName: () => undefined,
  verdict: () => ({ kind: 'refuse', reason: 'no tool is granted to this agent' }),
  call: async () => ({ text: 'no tool is granted to this agent', isError: true }),
  timeoutMs: () => 0,
  maxToolCalls: 0,
  maxResultChars: 0,
};
