import { describe, expect, it } from 'vitest';
import { troubledParts } from '../../../../src/gateway/troubled-parts.js';
import { troubleView } from '../../../../src/http/admin/views/trouble-view.js';
import type { ToolServerHealth } from '../../../../src/tools/mcp/server-health.js';
import { HealthLedger } from '../../../../src/utils/health-ledger.js';

/**
 * The Overview's unhealthy parts merged: this replica's from its memory, the other replicas'
 * from the store, one entry per part and replica, by name; MCP servers among them.
 */
const server = (name: string, state: ToolServerHealth['state'], lastError?: string): ToolServerHealth => ({ server: name, transport: 'http', state, since: 5_000, lastError, tools: 0, restarts: 2 });

describe('the trouble of several replicas', () => {
  it("lists this replica's parts and the others', naming each replica, the silent one's stale", () => {
    const providers = new HealthLedger();
    providers.failed('up', '401 Incorrect API key provided: ***', 1_000);
    const channels = new HealthLedger();
    const toolServers = [server('search', 'failed', 'ECONNREFUSED 127.0.0.1:9'), server('fresh', 'connecting'), server('fine', 'ready')];
    const mine = troubledParts({ providers, channels, toolServers });
    // a server connecting for the first time is not trouble yet
    expect(mine.map((p) => [p.kind, p.name])).toEqual([['provider', 'up'], ['toolServer', 'search']]);

    const view = troubleView([], {
      replica: 'b:2:bbbb',
      providers: () => providers.unhealthy(),
      channels: () => channels.unhealthy(),
      toolServers: () => toolServers,
    }, [
      { ...mine[0]!, replica: 'a:1:aaaa', seenAt: 9_000, stale: false },
      { kind: 'channel', name: 'slack', cause: 'slack: channel_not_found', since: 2_000, lastFailureAt: 3_000, consecutiveFailures: 4, replica: 'c:3:cccc', seenAt: 3_000, stale: true },
      { ...mine[1]!, replica: 'a:1:aaaa', seenAt: 9_000, stale: false },
    ]);
    expect(view.self).toBe('b:2:bbbb');
    expect(view.providers.map((p) => [p.name, p.replica, p.stale, p.since])).toEqual([
      ['up', 'a:1:aaaa', false, '1970-01-01T00:00:01.000Z'],
      ['up', 'b:2:bbbb', false, '1970-01-01T00:00:01.000Z'],
    ]);
    // another replica's last success is not known here
    expect(view.providers[0]!.lastOkAt).toBeNull();
    expect(view.channels).toEqual([
      { name: 'slack', replica: 'c:3:cccc', since: '1970-01-01T00:00:02.000Z', lastOkAt: null, lastFailureAt: '1970-01-01T00:00:03.000Z', cause: 'slack: channel_not_found', consecutiveFailures: 4, stale: true },
    ]);
    expect(view.toolServers).toEqual([
      { server: 'search', replica: 'a:1:aaaa', state: 'failed', since: '1970-01-01T00:00:05.000Z', lastError: 'ECONNREFUSED 127.0.0.1:9', stale: false },
      { server: 'search', replica: 'b:2:bbbb', state: 'failed', since: '1970-01-01T00:00:05.000Z', lastError: 'ECONNREFUSED 127.0.0.1:9', stale: false },
    ]);
  });
});
