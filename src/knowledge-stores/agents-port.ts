import type { AgentConfig } from '../config/default-agent.js';

/**
 * The agents as platform's services read them (whose own vector store, which stores attached): the
 * port platform declares, implemented by the agent directory of src/agents, which sits above it.
 */
export interface AgentDirectory {
  all(): AgentConfig[];
  get(id: string): AgentConfig | undefined;
}
