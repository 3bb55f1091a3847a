import { parseDuration } from '../../config/sections/duration-schema.js';
import type { HeraldConfig } from '../../config/schema.js';
import { scheduleJobFaults } from '../../config/checks/schedules-checks.js';
import type { ScheduleJob } from '../../config/sections/schedules-schema.js';
import type { TargetChannels } from '../alerts/alert-targets.js';
import { scheduleTargetFaults } from './schedule-targets.js';

/** one fault of a job, its field named from the job's root (`schedule.expr`, `payload.agentId`) */
export interface JobFault {
  field: string;
  reason: string;
}

const KEY = 'job';

/**
 * The faults the admin API (and so the CLI) refuses a job for, beyond its schema: the same checks
 * as `config check` and the start, with an ISO `at` in the past refused as well.
 */
export function jobFaults(job: ScheduleJob, config: Pick<HeraldConfig, 'schedules' | 'agents'> & Partial<Pick<HeraldConfig, 'tools'>>, targets: TargetChannels, now: number): JobFault[] {
  const ctx = { minEveryMs: parseDuration(config.schedules.minEvery), agentIds: new Set(config.agents.list.map((a) => a.id)), now, ...(config.tools && { toolServers: Object.keys(config.tools.mcpServers) }) };
  const faults = [...scheduleJobFaults(job, KEY, ctx, { pastAt: true }), ...scheduleTargetFaults(KEY, [job], targets)];
  return faults.map((fault) => {
    const colon = fault.indexOf(': ');
    return { field: fault.slice(0, colon).replace(/^job(\[0\])?\./, ''), reason: fault.slice(colon + 2) };
  });
}
