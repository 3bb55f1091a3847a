import { callsLedger, type ToolLedger } from '../../agents/tool-use/tool-ledger.js';
import type { ChatMessage } from '../../models/provider.js';
import type { Store } from '../../store/port.js';

const withoutMedia = ({ media: _, ...message }: ChatMessage): ChatMessage => message;

/**
 * A hook run's tool calls: each round's calls are stored with the turn's checkpoint in one
 * transaction, and only while this process still holds the run, so a call is never executed by
 * two processes and a run retaken after a crash goes on from the checkpoint.
 */
export function runLedger(store: Store, runId: string, owner: string): ToolLedger {
  const calls = callsLedger(store.toolCalls, 'run', runId);
  return {
    ...calls,
    // the checkpoint keeps no tool result's images or audio (their text describes them): megabytes stay out of the run's row
    begin: (records, checkpoint) => store.runs.checkpoint(runId, owner, { ...checkpoint, messages: checkpoint.messages.map(withoutMedia) } as unknown as Record<string, unknown>, records),
  };
}
