import type { HeraldConfig } from '../config/schema.js';

export type AgentConfig = HeraldConfig['agents']['list'][number];

/** The digital employees of the config; the first one runs hooks and heartbeats. */
export class AgentDirectory {
  constructor(private readonly config: HeraldConfig) {}

  all(): AgentConfig[] {
    return this.config.agents.list;
  }

  get(id: string): AgentConfig | undefined {
    return this.config.agents.list.find((a) => a.id === id);
  }

  default(): AgentConfig {
    return this.config.agents.list[0]!;
  }

  modelOf(agent: AgentConfig): string {
    return agent.model ?? this.config.agents.defaults.model;
  }
}
