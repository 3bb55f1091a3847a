import type { UsageEntry } from '../contracts/usage-port.js';

/** a usage row: the calls it holds, their tokens and cost summed */
export interface UsageCalls {
  entry: UsageEntry;
  calls: number;
}

/**
 * The entries of one write as rows: calls one after another that agree in their time, source,
 * model, key, agent, mapping and estimate (a group commit's runs of one agent and mapping,
 * finished in one millisecond) are one row holding their count, their tokens and cost summed.
 * Reports count calls (`SUM(calls)`), budgets sum tokens: both read a row as its calls.
 */
export function usageRows(entries: readonly UsageEntry[]): UsageCalls[] {
  const rows: UsageCalls[] = [];
  let last: UsageCalls | undefined;
  for (const e of entries) {
    if (last && alike(last.entry, e)) {
      const sum = last.entry;
      sum.promptTokens += e.promptTokens;
      sum.completionTokens += e.completionTokens;
      sum.totalTokens += e.totalTokens;
      sum.cost += e.cost;
      last.calls++;
      continue;
    }
    // a copy: the sums are written into it, never into the caller's entry
    last = { entry: { ...e }, calls: 1 };
    rows.push(last);
  }
  return rows;
}

function alike(a: UsageEntry, b: UsageEntry): boolean {
  return a.at === b.at && a.source === b.source && a.model === b.model && a.keyName === b.keyName && a.agentId === b.agentId && a.mappingId === b.mappingId && a.estimated === b.estimated;
}
