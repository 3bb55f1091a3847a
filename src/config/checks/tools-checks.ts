import type { HeraldConfig } from '../schema.js';

/** the built-ins' server name (tools/tool-policy.ts), reserved in tools.mcpServers */
const BUILTIN_SERVER = 'herald';

/** Cross-key faults of the tools config: each names its key. */
export function checkToolsConfig(config: Pick<HeraldConfig, 'tools' | 'agents'>): string[] {
  const faults: string[] = [];
  const servers = new Set(Object.keys(config.tools.mcpServers));
  if (servers.has(BUILTIN_SERVER)) faults.push(`tools.mcpServers.${BUILTIN_SERVER}: the name is reserved for herald's built-in tools`);
  config.agents.list.forEach((agent, i) => {
    agent.tools?.servers.forEach((name, j) => {
      if (name !== BUILTIN_SERVER && !servers.has(name)) faults.push(`agents.list[${i}].tools.servers[${j}]: unknown server "${name}" (add it to tools.mcpServers, or "${BUILTIN_SERVER}" for the built-ins)`);
    });
  });
  return faults;
}
