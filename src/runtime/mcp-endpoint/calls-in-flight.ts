import { INTERRUPTED } from '../../agents/tool-use/resume-round.js';
import type { Store, StateRepo } from '../../store/port.js';

const PREFIX = 'mcp-call-in-flight:';

/**
 * The governed calls of /mcp that are executing in this process. An MCP call has no run to resume
 * it: its client's session dies with the process, so nothing would ever finish its record. Each
 * is marked in the store's state while it executes; a successor that serves the database alone
 * finds the marks left behind and records those calls `interrupted` (never running them again).
 */
export class CallsInFlight {
  constructor(private readonly state: StateRepo) {}

  async started(recordId: string): Promise<void> {
    await this.state.set(PREFIX + recordId, true);
  }

  async ended(recordId: string): Promise<void> {
    await this.state.delete(PREFIX + recordId);
  }
}

/** at start (resume-after-crash.ts): the calls a dead predecessor left executing, recorded `interrupted`; how many */
export async function interruptLeftCalls(store: Pick<Store, 'state' | 'toolCalls'>): Promise<number> {
  let interrupted = 0;
  for (const { key } of await store.state.list(PREFIX)) {
    const record = await store.toolCalls.get(key.slice(PREFIX.length));
    if (record?.status === 'running') {
      await store.toolCalls.finish(record.id, { status: 'interrupted', result: null, error: INTERRUPTED, finishedAt: Date.now(), durationMs: record.startedAt ? Date.now() - record.startedAt : null });
      interrupted++;
    }
    await store.state.delete(key);
  }
  return interrupted;
}
