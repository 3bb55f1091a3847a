import type { HeraldConfig } from './schema.js';

export type AgentConfig = HeraldConfig['agents']['list'][number];

/** OpenClaw's rule: the first agent marked `default: true`, else the first of the list */
export function defaultAgent(config: Pick<HeraldConfig, 'agents'>): AgentConfig {
  return config.agents.list.find((a) => a.default) ?? config.agents.list[0]!;
}
