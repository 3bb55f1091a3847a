import type { ScheduleJob } from '../../config/sections/schedules-schema.js';
import type { TargetChannels } from '../alerts/alert-targets.js';

/** the channel an isolated job's reply goes to: `announce`'s (default `last`), `webhook`'s plugin, or none */
export function deliveryChannel(job: Pick<ScheduleJob, 'delivery'>): string | undefined {
  const { delivery } = job;
  if (delivery.mode === 'none') return undefined;
  return delivery.mode === 'webhook' ? 'webhook' : (delivery.channel ?? 'last');
}

/**
 * Faults of the jobs' delivery channels, each named `<key>[i].delivery.channel` or `.to`: checked
 * by `config check`, at start and by the admin API, so no run is made to deliver nowhere.
 */
export function scheduleTargetFaults(key: string, jobs: readonly ScheduleJob[], deps: TargetChannels): string[] {
  const faults: string[] = [];
  for (const [i, job] of jobs.entries()) {
    if (job.sessionTarget !== 'isolated') continue;
    const at = `${key}[${i}].delivery`;
    for (const [j, target] of (job.delivery.fallback ?? []).entries()) {
      const channel = deps.resolveChannel(target.channel);
      if (!channel) faults.push(`${at}.fallback[${j}].channel: no channel plugin is named "${target.channel}"`);
      else if (!deps.configured(channel)) faults.push(`${at}.fallback[${j}].channel: ${channel} is not configured (add channels.${channel})`);
      else if (target.to) {
        const fault = deps.recipientFault(channel, target.to);
        if (fault) faults.push(`${at}.fallback[${j}].to: ${fault}`);
      }
    }
    const name = deliveryChannel(job);
    if (name === undefined || name === 'last') continue;
    const channel = deps.resolveChannel(name);
    if (!channel) faults.push(`${at}.channel: no channel plugin is named "${name}"`);
    else if (!deps.configured(channel)) faults.push(`${at}.${job.delivery.mode === 'webhook' ? 'mode' : 'channel'}: ${channel} is not configured (add channels.${channel})`);
    else if (job.delivery.to) {
      const fault = deps.recipientFault(channel, job.delivery.to);
      if (fault) faults.push(`${at}.to: ${fault}`);
    }
  }
  return faults;
}
