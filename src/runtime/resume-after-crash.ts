import type { Logger } from 'pino';
import type { Store } from '../store/port.js';
import { interruptLeftCalls } from './mcp-endpoint/calls-in-flight.js';

/**
 * At start, before any request: when this process serves its database alone (SQLite), what a
 * predecessor that died left in progress is taken back at once instead of when its leases run
 * out. Its running runs go back to the queue, in order, and this process claims them as soon as
 * it starts claiming; the main session's events it was processing are pending again (the start
 * asks for a heartbeat when any is), and the deliveries it was sending are due now; its in-progress idempotency keys are completed from their run or freed, so
 * a retry is answered instead of refused with 409; the knowledge documents it was writing are removed
 * (their uploads never got an answer); the governed calls of /mcp it was executing are recorded
 * `interrupted` (calls-in-flight.ts). Where replicas share the database
 * (PostgreSQL), a dead replica's work is retaken when its lease runs out (`agents.defaults.leaseMs`),
 * its /mcp calls included (CallsInFlight.watch).
 */
export async function resumeAfterCrash(store: Store, logger: Logger): Promise<void> {
  if (!(await store.serveAlone())) return;
  const runs = await store.runs.requeueRunning();
  const idempotencyKeys = await store.idempotency.recoverInProgress();
  const events = await store.events.requeueProcessing();
  const deliveries = await store.deliveries.requeueSending(Date.now());
  const halfWrittenDocuments = await store.knowledge.removeUnfinished();
  const mcpCallsInterrupted = await interruptLeftCalls(store, { alone: true });
  if (runs || idempotencyKeys || events || deliveries || halfWrittenDocuments || mcpCallsInterrupted) {
    logger.info({ runs, idempotencyKeys, events, deliveries, halfWrittenDocuments, mcpCallsInterrupted }, 'took back what the previous process left in progress');
  }
}
