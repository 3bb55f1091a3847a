import type { Store } from '../../store/port.js';

/**
 * What a claimed fire made. `skipped`: why it made nothing (the job's rate refused the run).
 * `settled`: the fire's mark was written with what it made, in the same commit (`made`: a
 * main-session event), or it was no longer claimed and nothing was made (`taken`: another
 * claimer made it); absent, the scheduler marks the fire.
 */
export interface FireMade {
  detail?: string;
  skipped?: string;
  settled?: 'made' | 'taken';
}

/** what became of a claimed fire once carried out and marked */
export type FireCarriedOut =
  /** another claimer made it: its maker told of it */
  | { outcome: 'taken' }
  | { outcome: 'dispatched' | 'skipped'; skipped?: string }
  | { outcome: 'failed'; error: unknown };

/**
 * The one path of a claimed fire, a due one's (the scheduler) and an operator's run now alike:
 * made, then marked dispatched or skipped (unless its maker wrote the mark with what it made),
 * or failed with the error's message.
 */
export async function carryOutFire(store: Pick<Store, 'schedules'>, scheduleId: string, dueAt: number, make: () => Promise<FireMade>): Promise<FireCarriedOut> {
  try {
    const { detail, skipped, settled } = await make();
    if (settled === 'taken') return { outcome: 'taken' };
    const outcome = skipped ? 'skipped' : 'dispatched';
    if (settled !== 'made') await store.schedules.settleFire(scheduleId, dueAt, outcome, skipped ?? detail ?? null);
    return { outcome, ...(skipped && { skipped }) };
  } catch (error) {
    await store.schedules.settleFire(scheduleId, dueAt, 'failed', error instanceof Error ? error.message : String(error));
    return { outcome: 'failed', error };
  }
}
