import type { RunRecord } from '../../store/port.js';
import { startSpan, traced } from '../../tracing/tracing.js';

/**
 * A run's spans, in the trace of the request that made it (the context stored with the run), on
 * whichever replica executes it and however much later: its wait in the queue (from its creation
 * to its claim), then the run itself, active while it executes, so its model and tool calls and
 * the delivery of its reply are its children. Asked only while tracing is on (run-queue.ts): off,
 * the run executes without the closure this takes.
 */
export function runSpan<T>(run: RunRecord, execute: () => Promise<T>): Promise<T> {
  const parent = run.traceContext ?? null;
  const attributes = { 'herald.run.id': run.id, 'herald.agent.id': run.agentId, 'herald.mapping.id': run.action.source.mappingId };
  const startedAt = run.startedAt ?? Date.now();
  // always, a run claimed in the millisecond it was made too: a trace shows every run's wait, zero or not
  startSpan('herald.run.queued', { parent, startTime: run.createdAt, attributes }).end(Math.max(startedAt, run.createdAt));
  return traced('herald.run', { kind: 'consumer', parent, attributes: { ...attributes, 'herald.run.queue_wait_ms': Math.max(0, startedAt - run.createdAt) } }, execute);
}
