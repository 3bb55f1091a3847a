import type { TroubledPart } from '../runtime/operator/shared-health.js';
import { isTroubled, type ToolServerHealth } from '../tools/mcp/server-health.js';
import type { HealthLedger, PartHealth } from '../utils/health-ledger.js';

const fromLedger = (kind: TroubledPart['kind']) => (p: PartHealth): TroubledPart => ({
  kind,
  name: p.name,
  cause: p.cause,
  since: p.since ?? p.lastFailureAt ?? Date.now(),
  lastFailureAt: p.lastFailureAt,
  consecutiveFailures: p.consecutiveFailures,
});

/**
 * This replica's unhealthy parts as the Overview counts them: providers and channels whose last
 * call failed, MCP servers failed or connecting again after a failure.
 */
export function troubledParts(of: { providers: HealthLedger; channels: HealthLedger; toolServers: ToolServerHealth[] }): TroubledPart[] {
  return [
    ...of.providers.unhealthy().map(fromLedger('provider')),
    ...of.channels.unhealthy().map(fromLedger('channel')),
    ...of.toolServers
      .filter(isTroubled)
      .map((s): TroubledPart => ({ kind: 'toolServer', name: s.server, cause: s.lastError ?? null, since: s.since, lastFailureAt: null, consecutiveFailures: s.restarts, state: s.state })),
  ];
}
