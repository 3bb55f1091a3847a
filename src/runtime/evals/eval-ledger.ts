import type { ToolCallRecord } from '../../store/port.js';
import type { ToolLedger } from '../../agents/tool-use/tool-ledger.js';

/** an eval's record of a turn's tool calls: in memory, never the store's */
export function memoryLedger(ownerId: string): ToolLedger & { calls: ToolCallRecord[] } {
  const calls: ToolCallRecord[] = [];
  const byId = new Map<string, ToolCallRecord>();
  return {
    ownerKind: 'run',
    ownerId,
    calls,
    async begin(round) {
      for (const call of round) {
        const kept = { ...call };
        calls.push(kept);
        byId.set(kept.id, kept);
      }
      return true;
    },
    async start(id, at) {
      const call = byId.get(id);
      if (call) Object.assign(call, { status: 'running', startedAt: at });
    },
    async finish(id, end) {
      const call = byId.get(id);
      if (call) Object.assign(call, end);
    },
    recorded: async () => calls,
  };
}
