import type { ChatMessage, ModelUsage } from '../../models/provider.js';
import type { ToolCallOwner, ToolCallRecord, ToolCallsRepo, ToolTaskHandle } from '../../store/port.js';

/**
 * Where a turn's tool calls stand, so it can go on after a crash or an approval without asking
 * its model again: every message the model was sent (the assistant's last calls included), how
 * many rounds of calls and calls it made, and the tokens its earlier model calls spent.
 */
export interface TurnCheckpoint {
  messages: ChatMessage[];
  /** the round (from 0) of the assistant message that ends `messages` */
  round: number;
  callsMade: number;
  usage: ModelUsage;
  /** the model ref that answered so far */
  modelRef: string;
  /** where the turn's own exchange starts in `messages` (after the prompt): what its transcript keeps */
  exchangeFrom: number;
}

/** the checkpoint as stored (RunRecord.turnState), checked on read: a row is never cast */
export function readCheckpoint(state: Record<string, unknown> | null | undefined): TurnCheckpoint | undefined {
  if (!state || !Array.isArray(state.messages) || typeof state.round !== 'number' || typeof state.callsMade !== 'number') return undefined;
  return state as unknown as TurnCheckpoint;
}

/** The record of a turn's tool calls: each stored before it executes and again after. */
export interface ToolLedger {
  readonly ownerKind: ToolCallOwner;
  readonly ownerId: string;
  /** stores a round's calls (and, for a run, the turn's checkpoint) before any executes; false: the turn must stop (its run's lease was lost) */
  begin(calls: ToolCallRecord[], checkpoint: TurnCheckpoint): Promise<boolean>;
  start(id: string, at: number): Promise<void>;
  /** settles once the call's end is stored (its value is the store's, not for the ledger's caller) */
  finish(id: string, end: Parameters<ToolCallsRepo['finish']>[1]): Promise<unknown>;
  /** keeps the task a running call became at its server; a ledger without it keeps none (its turn never resumes) */
  setTask?(id: string, task: ToolTaskHandle): Promise<void>;
  /** the calls recorded so far (a resumed turn's) */
  recorded(): Promise<ToolCallRecord[]>;
}

/** a chat's, a response's or a heartbeat's ledger: calls recorded, no checkpoint (nothing resumes them) */
export function callsLedger(repo: ToolCallsRepo, ownerKind: ToolCallOwner, ownerId: string): ToolLedger {
  return {
    ownerKind,
    ownerId,
    async begin(calls) {
      await repo.insert(calls);
      return true;
    },
    start: (id, at) => repo.start(id, at),
    finish: (id, end) => repo.finish(id, end),
    setTask: (id, task) => repo.setTask(id, task),
    recorded: () => repo.ofOwner(ownerKind, ownerId),
  };
}
