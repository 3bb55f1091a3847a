import { createHash } from 'node:crypto';
import type { Definition } from './definitions/definition.js';
import { heraldCount } from './definitions/herald-count.js';
import { heraldCountStatus } from './definitions/herald-count-status.js';
import { heraldCountKnowledge } from './definitions/herald-count-knowledge.js';
import { heraldRunInserted } from './definitions/herald-run-inserted.js';
import { heraldRunEnded } from './definitions/herald-run-ended.js';
import { heraldSessionTurnSummarised } from './definitions/herald-session-turn-summarised.js';
import { heraldEnqueueEvent } from './definitions/herald-enqueue-event.js';
import { heraldCompleteRun } from './definitions/herald-complete-run.js';
import { heraldEnqueueEvents } from './definitions/herald-enqueue-events.js';
import { heraldCountStatusRows } from './definitions/herald-count-status-rows.js';
import { heraldDropOverflow } from './definitions/herald-drop-overflow.js';
import { heraldClaimEvents } from './definitions/herald-claim-events.js';
import { heraldGovernedWaiting } from './definitions/herald-governed-waiting.js';
import { heraldClaimRuns } from './definitions/herald-claim-runs.js';
import { heraldCompleteRunsAndClaim } from './definitions/herald-complete-runs-and-claim.js';
import { triggers } from './definitions/triggers.js';

/**
 * The PostgreSQL adapter's functions and triggers, each as its one current definition (one file
 * each in definitions/): reading a function means reading one place. They are repeatable
 * migrations (as Flyway's R__ files and Sqitch's reworked changes): the versioned migrations
 * (migrations.ts) hold only tables, columns, indexes and the rows they move, and migrate() applies
 * these after them whenever their text changed, recording the checksum. A function is changed
 * here, in place; a new one is a new file listed below (functions before the triggers that call them).
 */
export const definitions: Definition[] = [
  heraldCount,
  heraldCountStatus,
  heraldCountKnowledge,
  heraldRunInserted,
  heraldRunEnded,
  heraldSessionTurnSummarised,
  heraldEnqueueEvent,
  heraldCompleteRun,
  heraldEnqueueEvents,
  heraldCountStatusRows,
  heraldDropOverflow,
  heraldClaimEvents,
  heraldGovernedWaiting,
  heraldClaimRuns,
  heraldCompleteRunsAndClaim,
  ...triggers,
];

/** what the schema records of the definitions it holds: when this differs, they are applied again */
export function definitionsChecksum(list: Definition[] = definitions): string {
  const hash = createHash('sha256');
  for (const d of list) hash.update(d.name).update('\0').update(d.sql).update('\0');
  return hash.digest('hex');
}
