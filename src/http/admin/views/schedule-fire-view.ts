import type { z } from '@hono/zod-openapi';
import type { ScheduleFire, Store } from '../../../store/port.js';
import { isoTime as iso } from '../../../time/iso-time.js';
import type { scheduleFireSchema } from '../admin-schemas.js';

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
    run: runId ? { id: runId, name: run?.name ?? null, agentId: run?.agentId ?? null, status: run?.status ?? null, startedAt: iso(run?.startedAt ?? null), finishedAt: iso(run?.finishedAt ?? null) } : null,
  };
}
