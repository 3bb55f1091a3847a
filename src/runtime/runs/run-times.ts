import type { RunRecord, ToolCallRecord } from '../../store/port.js';

/** How a run's time was spent, each part once: in the queue, waiting for a person, worked. */
export interface RunTimes {
  /** from its creation to its first claim; null while it was never claimed */
  queuedMs: number | null;
  /** waiting for a person's decision on its tool calls (so far, while it waits) */
  approvalWaitMs: number;
  /** from its first claim to its end, less the wait for a person; null until it ended */
  workedMs: number | null;
}

/**
 * A run's times from its record and its tool calls. The wait for a person is, per model turn, from
 * the first of the turn's calls held for approval to the last decision on them (the run goes on
 * once all are decided), summed over the turns; a call still undecided counts up to `now`, or to
 * the run's end when it never was (a cancel).
 */
export function runTimes(run: Pick<RunRecord, 'createdAt' | 'startedAt' | 'finishedAt'>, calls: readonly ToolCallRecord[], now: number): RunTimes {
  const turns = new Map<number, { from: number; to: number }>();
  for (const call of calls) {
    if (!call.approvalRequired) continue;
    const decided = call.approval?.at ?? run.finishedAt ?? now;
    const turn = turns.get(call.turn);
    turns.set(call.turn, turn ? { from: Math.min(turn.from, call.createdAt), to: Math.max(turn.to, decided) } : { from: call.createdAt, to: decided });
  }
  let approvalWaitMs = 0;
  for (const { from, to } of turns.values()) approvalWaitMs += Math.max(0, to - from);
  const { createdAt, startedAt, finishedAt } = run;
  return {
    queuedMs: startedAt === null ? null : Math.max(0, startedAt - createdAt),
    approvalWaitMs,
    workedMs: startedAt === null || finishedAt === null ? null : Math.max(0, finishedAt - startedAt - approvalWaitMs),
  };
}
