import { storedToolCalls } from '../../../agents/tool-use/tool-messages.js';
import type { ResponseRecord, ResponseStore } from './response-record.js';

/**
 * The stored responses an operator looks through: newest first, optionally one agent's, at most
 * `limit`. Responses live in the state repo by id (no table, no index by time), so this reads them
 * all and sorts: fine for the hundreds a gateway keeps, not a paginated browse.
 */
export async function recentResponses(responses: ResponseStore, filter: { agentId?: string; limit: number }): Promise<ResponseRecord[]> {
  const records = (await responses.all()).filter((r) => filter.agentId === undefined || r.agentId === filter.agentId);
  return records.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, filter.limit);
}

/** the tools a response's model called: the server-side calls of its exchange and the client tools it handed back */
export const responseToolCallCount = (r: ResponseRecord): number =>
  (r.exchange ?? []).reduce((n, m) => n + storedToolCalls(m).length, 0) + (r.toolCalls?.length ?? 0);
