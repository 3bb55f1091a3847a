import path from 'node:path';
import type { Logger } from 'pino';
import { publicUrlOf } from '../../config/public-url.js';
import { extractiveAnswer } from '../../knowledge/searching/extractive-answer.js';
import { ModelRegistry } from '../../models/model-registry.js';
import type { LoadedConfig } from '../../plugin-host/load-config.js';
import { ChangePublisher, changeTopic } from '../../runtime/operator/change-feed.js';
import { replicaId, SharedHealth } from '../../runtime/operator/shared-health.js';
import type { Store } from '../../store/port.js';
import { McpServers } from '../../tools/mcp/mcp-servers.js';
import { McpSessions } from '../../http/mcp/mcp-sessions.js';
import { HealthLedger } from '../../utils/health-ledger.js';
import type { Lifecycle } from '../lifecycle.js';
import { troubledParts } from '../troubled-parts.js';

/**
 * The parts whose health the console shows: the model providers, the channels' attempts and the
 * MCP servers, and how a change of theirs is told (the live Overview's trouble feed; on
 * PostgreSQL the replicas' shared view, written on a change, never per call).
 */
export function buildHealth({ loaded, store }: { loaded: LoadedConfig; store: Store }, logger: Logger, lifecycle: Lifecycle) {
  const { config } = loaded;
  const replica = replicaId();
  // a refused reload, a provider or channel failing or recovering reaches the console's live Overview,
  // told once per window however many calls fail (on PostgreSQL each signal is a NOTIFY)
  const troubleFeed = new ChangePublisher(store.signals);
  // told of every change of this replica's health: the shared view, once it is made below
  const healthChanged: Array<() => void> = [];
  const tellHealthChanged = () => healthChanged.forEach((tell) => tell());
  const troubleChanged = () => {
    troubleFeed.changed(['trouble']);
    tellHealthChanged();
  };
  // herald as an MCP server (platform.mcp): the sessions this process holds, whatever the config says now
  const mcpSessions = new McpSessions(() => config.platform.mcp);
  // connected in the background from start(): a server that does not answer never holds herald back;
  // a server's change of state reaches the console's live Overview through the change feed
  const mcp = new McpServers({
    tools: config.tools,
    baseDir: path.dirname(loaded.file),
    logger,
    state: store.state,
    replica,
    publicUrl: () => publicUrlOf(config.gateway),
    onChange: () => {
      store.signals.publish(changeTopic('tools'));
      tellHealthChanged();
      // an upstream server's tools changed (or it came or went): /mcp's clients list theirs again
      void mcpSessions.toolsChanged();
    },
  });
  const models = new ModelRegistry(config, extractiveAnswer, process.env, troubleChanged);
  const channelHealth = new HealthLedger(troubleChanged);
  // replicas sharing PostgreSQL share their unhealthy parts through the store; SQLite serves one
  // process, whose memory is the whole story
  const sharedHealth =
    'postgres' in config.storage
      ? new SharedHealth({ state: store.state, replica, troubled: () => troubledParts({ providers: models.health, channels: channelHealth, toolServers: mcp.health() }), onWritten: () => troubleFeed.changed(['trouble']), logger })
      : undefined;
  if (sharedHealth) healthChanged.push(() => sharedHealth.changed());
  lifecycle.add(
    { name: 'trouble feed', stop: () => troubleFeed.close() },
    // what this replica saw unhealthy is no longer anyone's trouble once it stops
    { name: 'shared health', start: () => sharedHealth?.start(), stop: () => sharedHealth?.stop() },
  );
  return { replica, mcp, mcpSessions, models, channelHealth, sharedHealth, troubleChanged };
}
