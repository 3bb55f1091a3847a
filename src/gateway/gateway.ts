import type { RequestListener } from 'node:http';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { AgentDirectory } from '../agents/agent-directory.js';
import type { HeraldConfig } from '../config/schema.js';
import { createLogger } from '../log/log.js';
import { setVerboseErrors } from '../log/log-detail.js';
import type { HeraldMetrics } from '../metrics/herald-metrics.js';
import type { MappingsEngine } from '../mappings/mappings-engine.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { McpSessions } from '../http/mcp/mcp-sessions.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';
import type { PluginInstances } from '../plugin-host/instantiate.js';
import type { LoadedConfig } from '../plugin-host/load-config.js';
import type { PluginRegistry } from '../plugin-host/registry.js';
import type { Approvals } from '../runtime/approvals/approvals.js';
import type { ReplyDelivery } from '../runtime/delivery/reply-delivery.js';
import type { DispatchAction } from '../runtime/dispatch-action.js';
import type { Heartbeat } from '../runtime/heartbeat.js';
import type { MainSession } from '../runtime/main-session.js';
import type { RunQueue } from '../runtime/runs/run-queue.js';
import type { Schedules } from '../runtime/schedules/schedules.js';
import type { Store } from '../store/port.js';
import type { McpServers } from '../tools/mcp/mcp-servers.js';
import type { ListenOverrides, ReloadResult } from './gateway-reload.js';
import { Lifecycle } from './lifecycle.js';
import { buildHealth } from './parts/health-parts.js';
import { buildHttp } from './parts/http-parts.js';
import { buildKnowledge } from './parts/knowledge-parts.js';
import { buildRuntime } from './parts/runtime-parts.js';
import { buildStorage } from './parts/storage-parts.js';

export interface Gateway {
  app: Hono;
  /**
   * the server's request listener: `rest` (hono's, for `app`) with the webhook surface and chat
   * completions answered from Node's request directly, through their Node doors
   * (src/http/exchange/node-door.ts; the same pipelines as their hono doors in `app`)
   */
  withNodeRoutes(rest: RequestListener): RequestListener;
  config: HeraldConfig;
  plugins: PluginRegistry;
  store: Store;
  logger: Logger;
  models: ModelRegistry;
  agents: AgentDirectory;
  mainSession: MainSession;
  heartbeat: Heartbeat;
  runs: RunQueue;
  engine: MappingsEngine;
  dispatch: DispatchAction;
  instances: PluginInstances;
  delivery: ReplyDelivery;
  /** approvals by a person: announce a paused run's calls, decide, the expiry sweep */
  approvals: Approvals;
  /** this gateway's Prometheus metrics; undefined when gateway.metrics.enabled is false */
  metrics?: HeraldMetrics;
  /** the configured MCP servers (tools.mcpServers): their tools, calls and health */
  mcp: McpServers;
  /** the MCP clients connected to /mcp (platform.mcp) */
  mcpSessions: McpSessions;
  /** the scheduled jobs (config and admin API) and the scheduler firing them */
  schedules: Schedules;
  /** resumes unfinished work and starts timers and plugin services */
  start(): Promise<void>;
  /**
   * reloads the config file (SIGHUP, `herald reload`, an edit in hooks.mappingsDir): a valid one
   * takes effect at once, an invalid one is refused and logged, and the running config stays
   */
  reload(reason?: string): Promise<ReloadResult>;
  /** stops taking work, lets running runs finish within `graceMs`, closes the store */
  stop(graceMs?: number): Promise<void>;
}

export interface GatewayOptions {
  logger?: Logger;
  /** the built-in plugins, for a config reload (default: every plugin of the running registry) */
  builtins?: PluginSource[];
  /** `herald serve --host/--port`, kept over the file's values when the config is reloaded */
  listen?: ListenOverrides;
}

/**
 * Assembles herald from a loaded config: the composition root every command and test uses. Each
 * builder makes its parts from those before it and registers them with the lifecycle, which
 * starts them in this order and stops them in the reverse.
 */
export async function createGateway(loaded: LoadedConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const { config, plugins } = loaded;
  const logger = options.logger ?? createLogger({ level: config.gateway.log.level });
  setVerboseErrors(logger, config.gateway.log.verboseErrors);
  const lifecycle = new Lifecycle([], logger);
  const { store } = await buildStorage(config, logger, lifecycle);
  const agents = new AgentDirectory(config);
  const health = buildHealth({ loaded, store }, logger, lifecycle);
  const knowledge = buildKnowledge({ config, store, agents }, logger, lifecycle);
  const runtime = await buildRuntime({ loaded, store, agents, health, knowledge }, logger, lifecycle);
  const http = buildHttp({ loaded, store, agents, health, knowledge, runtime, builtins: options.builtins ?? plugins.listings, listen: options.listen }, logger, lifecycle);
  return {
    app: http.app,
    withNodeRoutes: http.withNodeRoutes,
    config,
    plugins,
    store,
    logger,
    models: health.models,
    agents,
    mainSession: runtime.mainSession,
    heartbeat: runtime.heartbeat,
    runs: runtime.runs,
    engine: runtime.engine,
    dispatch: runtime.dispatch,
    instances: runtime.instances,
    delivery: runtime.delivery,
    approvals: runtime.approvals,
    metrics: runtime.metrics,
    mcp: health.mcp,
    mcpSessions: http.mcpSessions,
    schedules: runtime.schedules,
    reload: http.reload,
    start: () => lifecycle.start(),
    stop: (graceMs = 10_000) => lifecycle.stop({ graceMs }),
  };
}
