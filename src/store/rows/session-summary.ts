import type { SessionSummary } from '../port.js';

/** a row of the sessions list, as both adapters select it */
export interface SessionRow {
  key: string;
  agent_id: string;
  messages: number;
  first_at: number;
  last_at: number;
}

export const toSession = (r: SessionRow): SessionSummary => ({
  key: r.key,
  agentId: r.agent_id,
  messages: Number(r.messages),
  firstAt: Number(r.first_at),
  lastAt: Number(r.last_at),
});
