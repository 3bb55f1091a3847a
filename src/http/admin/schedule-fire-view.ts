import { z } from '@hono/zod-openapi';
import type { ScheduleFire, Store } from '../../store/port.js';
import { isoTime as iso } from '../../time/iso-time.js';
import { runStatuses } from './admin-schemas.js';

const time = z.string().nullable().openapi({ format: 'date-time', example: '2026-11-22T07:00:00.000Z' });

export const fireOutcomes = ['claimed', 'dispatched', 'skipped', 'missed', 'failed'] as const;

/** a fire as the admin API shows it: the receipt of a schedule, as a webhook request has one */
export const scheduleFireSchema = z
  .object({
    source: z.string().openapi({ description: 'What made the run or event: `schedule <id>` (a webhook request\'s receipt names its path instead).', example: 'schedule morning-brief' }),
    scheduleId: z.string(),
    dueAt: time.openapi({ description: 'The due time (for a run now, the moment it was asked).' }),
    startedAt: time.openapi({ description: 'When herald made the fire: claimed it and queued its run or added its event.' }),
    firedAt: time.openapi({ description: 'The same as startedAt (the name of earlier answers).' }),
    lagMs: z.number().int().openapi({ description: 'startedAt minus dueAt, in milliseconds: how late the fire started.' }),
    outcome: z.enum(fireOutcomes).openapi({ description: 'claimed: taken, its run or event not made yet; dispatched: its run queued or its event added; skipped (overlap, or the job\'s rate), missed (catchUp false) or failed, with `detail`.' }),
    detail: z.string().nullable(),
    run: z
      .object({ id: z.string(), status: z.enum(runStatuses).nullable(), startedAt: time, finishedAt: time })
      .nullable()
      .openapi({ description: "An isolated job's run, as it stands (status null: no longer stored), with when it began executing and ended; null for a main-session event." }),
  })
  .openapi('ScheduleFire');

export type ScheduleFireView = z.infer<typeof scheduleFireSchema>;

/** a fire with its run as it stands now */
export async function fireView(store: Pick<Store, 'runs'>, fire: ScheduleFire): Promise<ScheduleFireView> {
  // a skipped fire keeps the run id chosen before its claim, but made no run
  const runId = fire.outcome === 'skipped' || fire.outcome === 'missed' ? null : fire.runId;
  const run = runId ? await store.runs.get(runId) : undefined;
  return {
    source: `schedule ${fire.scheduleId}`,
    scheduleId: fire.scheduleId,
    dueAt: iso(fire.dueAt),
    startedAt: iso(fire.firedAt),
    firedAt: iso(fire.firedAt),
    lagMs: fire.firedAt - fire.dueAt,
    outcome: fire.outcome,
    detail: fire.detail,
    run: runId ? { id: runId, status: run?.status ?? null, startedAt: iso(run?.startedAt ?? null), finishedAt: iso(run?.finishedAt ?? null) } : null,
  };
}
