import type { AlertRule } from '../../config/sections/alerts-schema.js';
import type { ScheduleFire, Store } from '../../store/port.js';
import { parseDuration } from '../duration.js';
import type { AlertCheck, Incident } from './alert-check.js';
import { runsFailing } from './runs-failing.js';

type Rule<On extends AlertRule['on']> = Extract<AlertRule, { on: On }>;

/** recent fires or runs read to find which jobs to judge when a rule names none */
const CANDIDATES_READ = 200;

/** an open incident this rule owns still holds while the rule finds it (a rule naming one job owns only that job's) */
const holdsWhileFiring = (prefix: string, schedule: string | undefined) => async (open: { incidentKey: string }, firing: Incident[]) => {
  if (!open.incidentKey.startsWith(prefix)) return undefined;
  if (schedule !== undefined && open.incidentKey !== `${prefix}${schedule}`) return undefined;
  return firing.some((i) => i.incidentKey === open.incidentKey);
};

/**
 * `schedule.failing`: a job's runs keep failing, judged as `runs.failing` judges a mapping's (a
 * fire's run is one of mapping `schedule:<id>`). Without a job named, the jobs judged are those
 * with a failed or timed-out run among the newest, so a pass reads no more than a few lists.
 */
export function scheduleFailing(store: Store, rule: Rule<'schedule.failing'>, withinMs: number | undefined): AlertCheck {
  const prefix = 'schedule.failing:';
  const candidates = async (now: number): Promise<string[]> => {
    if (rule.schedule !== undefined) return [rule.schedule];
    const since = withinMs && now - withinMs;
    const failed = [...(await store.browse.runs({ status: 'failed', since, limit: CANDIDATES_READ })), ...(await store.browse.runs({ status: 'timed_out', since, limit: CANDIDATES_READ }))];
    return [...new Set(failed.flatMap((run) => (run.action.schedule ? [run.action.schedule.id] : [])))];
  };
  return {
    condition: rule.on,
    async firing(now) {
      const incidents: Incident[] = [];
      for (const id of await candidates(now)) {
        const how = await runsFailing(store, { mappingId: `schedule:${id}` }, rule, withinMs, now);
        if (!how) continue;
        const key = `${prefix}${id}`;
        incidents.push({ condition: rule.on, incidentKey: key, cooldownKey: key, subject: `schedule ${id}`, summary: `schedule ${id}: ${how}` });
      }
      return incidents;
    },
    holds: holdsWhileFiring(prefix, rule.schedule),
  };
}

/**
 * `schedule.missed`: a job's newest fire did not run as due (skipped, missed, or started more than
 * `lateBy` after its due time). The newest decides, as the newest run does for `runs.failing`: a
 * later fire on time resolves it. Fires due before alerts began watching are history, not incidents.
 */
export function scheduleMissed(store: Store, rule: Rule<'schedule.missed'>, watchingSince: number): AlertCheck {
  const prefix = 'schedule.missed:';
  const lateByMs = parseDuration(rule.lateBy);
  const notAsDue = (fire: ScheduleFire) => fire.outcome === 'skipped' || fire.outcome === 'missed' || fire.firedAt - fire.dueAt > lateByMs;
  const candidates = async (): Promise<string[]> => {
    if (rule.schedule !== undefined) return [rule.schedule];
    const fires = await store.schedules.listFires({ notAsDue: true, lateByMs, since: watchingSince, limit: CANDIDATES_READ });
    return [...new Set(fires.map((f) => f.scheduleId))];
  };
  return {
    condition: rule.on,
    async firing() {
      const incidents: Incident[] = [];
      for (const id of await candidates()) {
        // a fire still being made (claimed) has no outcome yet: the one before it decides
        const newest = (await store.schedules.listFires({ scheduleId: id, limit: 5 })).find((f) => f.outcome !== 'claimed');
        if (!newest || newest.dueAt < watchingSince || !notAsDue(newest)) continue;
        const key = `${prefix}${id}`;
        incidents.push({ condition: rule.on, incidentKey: key, cooldownKey: key, subject: `schedule ${id}`, summary: `schedule ${id}: ${howMissed(newest, rule.lateBy)}` });
      }
      return incidents;
    },
    holds: holdsWhileFiring(prefix, rule.schedule),
  };
}

function howMissed(fire: ScheduleFire, lateBy: string): string {
  const due = new Date(fire.dueAt).toISOString();
  if (fire.outcome === 'skipped' || fire.outcome === 'missed') return `its fire due at ${due} was ${fire.outcome}${fire.detail ? `: ${fire.detail}` : ''}`;
  return `its fire due at ${due} started ${Math.round((fire.firedAt - fire.dueAt) / 1000)} s late (more than ${lateBy})`;
}
