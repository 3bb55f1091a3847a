import type { ToolsConfig } from '../../config/sections/tools-schema.js';
import { channelTargetFaults, type TargetChannels } from '../alerts/alert-targets.js';

/** faults of `tools.approvals.targets`, as alerts' targets are checked: by `config check` and at start */
export function approvalTargetFaults(tools: ToolsConfig, deps: TargetChannels): string[] {
  return channelTargetFaults('tools.approvals.targets', tools.approvals.targets, deps);
}
