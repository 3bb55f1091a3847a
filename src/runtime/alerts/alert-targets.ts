import type { AlertsConfig, AlertTarget } from '../../config/sections/alerts-schema.js';
import type { ChannelAdapter } from '../../plugin-sdk/sdk.js';

export interface TargetChannels {
  /** the configured channel of this id (what `config check` knows without starting it: whether it needs a recipient is left to the start) */
  configured(channel: string): Pick<ChannelAdapter, 'requiresRecipient'> | undefined;
  resolveChannel(name: string): string | undefined;
  /** why `to` is not a recipient on the channel, if it is not */
  recipientFault(channel: string, to: string): string | undefined;
}

/** faults of the alerts targets, each naming its key: checked by `config check` and at start, so no notice is queued to nowhere */
export function alertTargetFaults(alerts: AlertsConfig, deps: TargetChannels): string[] {
  const faults: string[] = [];
  if (alerts.rules.length && !alerts.targets.length) faults.push('alerts.targets: alert rules are set but no target to send them to');
  return [...faults, ...channelTargetFaults('alerts.targets', alerts.targets, deps)];
}

/** faults of a list of channel targets (alerts', approvals'), each named `<key>[i].channel` or `.to` */
export function channelTargetFaults(key: string, targets: readonly AlertTarget[], deps: TargetChannels): string[] {
  const faults: string[] = [];
  for (const [i, target] of targets.entries()) {
    const channel = deps.resolveChannel(target.channel);
    const adapter = channel ? deps.configured(channel) : undefined;
    if (!channel) faults.push(`${key}[${i}].channel: no channel plugin is named "${target.channel}"`);
    else if (!adapter) faults.push(`${key}[${i}].channel: ${channel} is not configured (add channels.${channel})`);
    else if (!target.to && adapter.requiresRecipient !== false) faults.push(`${key}[${i}].to: ${channel} needs a recipient`);
    else if (target.to) {
      const fault = deps.recipientFault(channel, target.to);
      if (fault) faults.push(`${key}[${i}].to: ${fault}`);
    }
  }
  return faults;
}
