import { isUnfinished, type RunRecord, type Store } from '../../store/port.js';
import { parseDuration } from '../duration.js';

/** runs of a mapping or agent read to judge a `runs.failing` rule */
const RUNS_READ = 200;

const failedOrTimedOut = (run: RunRecord) => run.status === 'failed' || run.status === 'timed_out';
const finished = (run: RunRecord) => !isUnfinished(run.status) && run.status !== 'cancelled';

export const withinMsOf = (within: string | undefined) => (within ? parseDuration(within) : undefined);

/**
 * Whether the runs of a mapping or agent keep failing, as a sentence, else undefined: the newest
 * finished run decides (one success clears it); then the last `count` all failed, or with `within`,
 * `count` of them failed within that window.
 */
export async function runsFailing(store: Store, whose: { mappingId?: string; agentId?: string }, rule: { count: number; within?: string }, withinMs: number | undefined, now: number): Promise<string | undefined> {
  const runs = (await store.browse.runs({ ...whose, limit: RUNS_READ, since: withinMs && now - withinMs })).filter(finished);
  if (!runs[0] || !failedOrTimedOut(runs[0])) return undefined;
  const failing = withinMs ? runs.filter(failedOrTimedOut).length >= rule.count : runs.length >= rule.count && runs.slice(0, rule.count).every(failedOrTimedOut);
  if (!failing) return undefined;
  const how = withinMs ? `${runs.filter(failedOrTimedOut).length} runs failed within ${rule.within}` : `${rule.count} runs in a row failed`;
  return `${how} (the last: run ${runs[0].id}, ${runs[0].status})`;
}

