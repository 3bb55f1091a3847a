import type { HeraldConfig } from '../config/schema.js';
import { defaultAgent, type AgentConfig } from '../config/default-agent.js';

export type { AgentConfig };

/** The digital employees of the config; the one marked `default: true` (else the first) runs hooks and heartbeats. */
export class AgentDirectory {
  constructor(private readonly config: HeraldConfig) {}

  all(): AgentConfig[] {
    return this.config.agents.list;
  }

  get(id: string): AgentConfig | undefined {
    return this.config.agents.list.find((a) => a.id === id);
  }

  default(): AgentConfig {
    return defaultAgent(this.config);
  }

  /** whether a hook run may go to this agent (hooks.allowedAgentIds: unset or "*" allows any) */
  hooksAllowed(id: string): boolean {
    const allowed = this.config.hooks.allowedAgentIds;
    return !allowed || allowed.includes('*') || allowed.includes(id);
  }

  modelOf(agent: AgentConfig): string {
    return agent.model ?? this.config.agents.defaults.model.primary;
  }

  /** how every agent's knowledge is searched: full text (BM25), or fused with vectors when an embeddings model is configured */
  retrieval(): 'bm25' | 'hybrid' {
    return this.config.platform.knowledge.embeddings ? 'hybrid' : 'bm25';
  }
}
