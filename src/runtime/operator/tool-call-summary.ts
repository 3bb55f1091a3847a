import type { ToolCallRecord, ToolCallStatus } from '../../store/port.js';

/** What a run's tools did, as the Runs list shows it: every call the model made, and those a person or trouble stopped. */
export interface ToolCallCounts {
  /** every call the model asked for */
  made: number;
  /** waiting for a person's decision */
  waiting: number;
  /** not executed: refused by policy (not granted, past maxToolCalls) or denied by a person or the approval timeout */
  refused: number;
  /** executed and failed, timed out, or interrupted by a stop */
  failed: number;
}

/** the Runs list's filter on tool calls: any made, or one of the kinds above */
export const toolCallFilters = ['any', 'waiting', 'refused', 'failed'] as const;
export type ToolCallFilter = (typeof toolCallFilters)[number];

/** the statuses each filter (and count) gathers */
export const TOOL_CALL_KINDS: Record<Exclude<ToolCallFilter, 'any'>, ToolCallStatus[]> = {
  waiting: ['waiting_approval'],
  refused: ['refused', 'denied'],
  failed: ['failed', 'timed_out', 'interrupted'],
};

export function toolCallCounts(byStatus: Partial<Record<ToolCallStatus, number>> | undefined): ToolCallCounts {
  const sum = (statuses: readonly ToolCallStatus[]) => statuses.reduce((n, s) => n + (byStatus?.[s] ?? 0), 0);
  return {
    made: Object.values(byStatus ?? {}).reduce((n, c) => n + (c ?? 0), 0),
    waiting: sum(TOOL_CALL_KINDS.waiting),
    refused: sum(TOOL_CALL_KINDS.refused),
    failed: sum(TOOL_CALL_KINDS.failed),
  };
}

export function countsOfCalls(calls: readonly ToolCallRecord[]): ToolCallCounts {
  const byStatus: Partial<Record<ToolCallStatus, number>> = {};
  for (const c of calls) byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
  return toolCallCounts(byStatus);
}

/** the words of a call refused past the turn's limit (tool-round.ts), which carry the limit in force then */
export const LIMIT_REFUSAL = /^the turn's limit of (\d+) tool calls is reached/;

/**
 * Whether a run's turn hit `tools.maxToolCalls`: a call refused past it (its words name the limit
 * in force then), or as many calls made as the limit allows (the model was then told to answer
 * without tools). Null for a run that called no tool.
 */
export function toolLimitOf(calls: readonly ToolCallRecord[], maxToolCalls: number): { max: number; reached: boolean } | null {
  if (!calls.length) return null;
  for (const c of calls) {
    const refused = c.status === 'refused' && c.error ? LIMIT_REFUSAL.exec(c.error) : null;
    if (refused) return { max: Number(refused[1]), reached: true };
  }
  return { max: maxToolCalls, reached: calls.length >= maxToolCalls };
}
