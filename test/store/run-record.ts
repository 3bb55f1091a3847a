import type { RunRecord } from '../../src/store/port.js';

/** a queued agent run as the store keeps it, for store-level tests */
export const queuedRun = (id: string, createdAt = 1): RunRecord => ({
  id,
  status: 'queued',
  agentId: 'main',
  name: 'Hook',
  sessionKey: `hook:${id}`,
  message: `message ${id}`,
  action: { kind: 'agent', message: `message ${id}`, deliver: false },
  reply: null,
  error: null,
  createdAt,
  startedAt: null,
  finishedAt: null,
});
