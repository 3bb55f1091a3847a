import type { ListFilter } from './list-filter.js';
import type { FireQuery } from '../contracts/schedules-port.js';

/** the schedule fires list's conditions, the same on both adapters (time column due_at, id column schedule_id) */
export function fireFilter(f: ListFilter, query: FireQuery): ListFilter {
  const late = query.lateByMs;
  return f
    .where('schedule_id = ?', query.scheduleId)
    .where('outcome = ?', query.outcome)
    .where('run_id = ?', query.runId)
    .where(query.notAsDue ? `(outcome IN ('missed', 'skipped') OR fired_at - due_at > ?)` : 'fired_at - due_at > ?', late)
    .whereIf(query.notAsDue && late === undefined, `outcome IN ('missed', 'skipped')`)
    .page(query, ['schedule_id', 'run_id', 'detail']);
}
