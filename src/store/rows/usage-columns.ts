import type { UsageGroup } from '../contracts/usage-port.js';

/** the column each report grouping sums by (a fixed set: safe to place in SQL) */
export const usageGroupColumn: Record<UsageGroup, string> = { key: 'key_name', agent: 'agent_id', mapping: 'mapping_id', model: 'model' };

/** a report row as both adapters select it */
export interface UsageReportRow {
  grp: string | null;
  day?: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  estimated_tokens: number;
  cost: number;
}

export const toUsageRow = (row: UsageReportRow) => ({
  group: row.grp,
  ...(row.day !== undefined && { day: row.day }),
  requests: Number(row.requests),
  promptTokens: Number(row.prompt_tokens),
  completionTokens: Number(row.completion_tokens),
  totalTokens: Number(row.total_tokens),
  estimatedTokens: Number(row.estimated_tokens),
  cost: Number(row.cost),
});
