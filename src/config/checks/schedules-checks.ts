import { parseDuration } from '../sections/duration-schema.js';
import type { ScheduleJob, SchedulesConfig } from '../sections/schedules-schema.js';

/** what a job's checks need of the rest of the config */
export interface ScheduleCheckContext {
  minEveryMs: number;
  agentIds: ReadonlySet<string>;
  /** the servers of tools.mcpServers, when known: a toolCall names one of them (or herald) */
  toolServers?: readonly string[];
  /** epoch ms: an ISO `at` before it is in the past */
  now: number;
}

/**
 * Faults of one job that its schema cannot see (they depend on the rest of the config or on the
 * time), each naming its field under `key` (`schedules.jobs[2]`): shared by the config checks,
 * the admin API and the CLI, so all refuse alike.
 */
export function scheduleJobFaults(job: ScheduleJob, key: string, ctx: ScheduleCheckContext, options: { pastAt: boolean } = { pastAt: true }): string[] {
  const faults: string[] = [];
  const { schedule } = job;
  if (schedule.kind === 'every' && parseDuration(schedule.every) < ctx.minEveryMs) {
    faults.push(`${key}.schedule.every: ${schedule.every} is shorter than schedules.minEvery (${ctx.minEveryMs / 1000}s)`);
  }
  if (options.pastAt && schedule.kind === 'at' && isIsoAt(schedule.at) && Date.parse(schedule.at) <= ctx.now) {
    faults.push(`${key}.schedule.at: ${schedule.at} is in the past`);
  }
  if (job.payload.kind === 'agentTurn' && job.payload.agentId !== undefined && !ctx.agentIds.has(job.payload.agentId)) {
    faults.push(`${key}.payload.agentId: unknown agent "${job.payload.agentId}"`);
  }
  if (job.payload.kind === 'toolCall' && ctx.toolServers) {
    const server = job.payload.tool.slice(0, job.payload.tool.indexOf('__'));
    if (server !== 'herald' && !ctx.toolServers.includes(server)) faults.push(`${key}.payload.tool: "${server}" is not a server of tools.mcpServers (${ctx.toolServers.length ? ctx.toolServers.join(', ') : 'none configured'}) nor herald`);
  }
  return faults;
}

/** an `at` written as a time (not a duration from now) */
export function isIsoAt(at: string): boolean {
  return at.includes('T');
}

/**
 * Cross-key faults of `schedules`. A config one-shot whose ISO `at` has passed is not a fault
 * here: it is the normal state of a one-shot that fired before a restart (the start says so).
 */
export function checkSchedulesConfig(config: { schedules: SchedulesConfig; agents: { list: { id: string }[] }; tools?: { mcpServers: Record<string, unknown> } }, now = Date.now()): string[] {
  const ctx: ScheduleCheckContext = { minEveryMs: parseDuration(config.schedules.minEvery), agentIds: new Set(config.agents.list.map((a) => a.id)), now, ...(config.tools && { toolServers: Object.keys(config.tools.mcpServers) }) };
  const faults: string[] = [];
  const seen = new Set<string>();
  config.schedules.jobs.forEach((job, i) => {
    const key = `schedules.jobs[${i}]`;
    if (seen.has(job.id)) faults.push(`${key}.id: duplicate job id "${job.id}"`);
    seen.add(job.id);
    faults.push(...scheduleJobFaults(job, key, ctx, { pastAt: false }));
  });
  return faults;
}
