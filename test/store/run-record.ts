import type { RunAction, RunRecord } from '../../src/store/port.js';

/** a whole agent action as the mappings engine makes it */
export const agentAction = (message: string, over: Partial<RunAction> = {}): RunAction => ({
  kind: 'agent',
  message,
  name: 'Hook',
  agentId: 'main',
  wakeMode: 'now',
  deliver: false,
  channel: 'last',
  allowUnsafeExternalContent: false,
  source: { mappingId: 'agent', path: 'agent' },
  ...over,
});

/** a queued agent run as the store keeps it, for store-level tests */
export const queuedRun = (id: string, createdAt = 1, action: Partial<RunAction> = {}): RunRecord => ({
  id,
  status: 'queued',
  agentId: 'main',
  name: 'Hook',
  sessionKey: `hook:${id}`,
  message: `message ${id}`,
  action: agentAction(`message ${id}`, action),
  reply: null,
  error: null,
  createdAt,
  startedAt: null,
  finishedAt: null,
});
