import type { Logger } from 'pino';
import { RateLimiter } from '../../accounts/rate-limiter.js';
import { ApiKeyVerifier } from '../../accounts/api-keys.js';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import { FailedAuthLimiter } from '../../http/auth/failed-auth-limiter.js';
import { createApp } from '../../http/create-app.js';
import { hookSurface } from '../../http/hooks/hook-surface.js';
import { nodeRoutes } from '../../http/node-routes.js';
import { chatSurface } from '../../http/v1/chat/chat-completions.js';
import { PlatformGate } from '../../http/v1/platform-auth.js';
import type { HeraldMetrics } from '../../metrics/herald-metrics.js';
import { McpMetrics } from '../../metrics/mcp-metrics.js';
import type { LoadedConfig } from '../../plugin-host/load-config.js';
import { HookIntake } from '../../runtime/hook-intake.js';
import { ConfigTrouble } from '../../runtime/operator/config-trouble.js';
import { ReceiptRecorder } from '../../runtime/receipts/receipt-recorder.js';
import { RunCompletionReporter } from '../../runtime/runs/run-completion-report.js';
import { RunWaiter } from '../../runtime/runs/run-waiter.js';
import { createKeyedDispatcher } from '../../runtime/dispatch-action.js';
import type { Store } from '../../store/port.js';
import { FolderWatch } from '../folder-watch.js';
import { reloadGateway, type ListenOverrides, type ReloadResult } from '../gateway-reload.js';
import type { Lifecycle } from '../lifecycle.js';
import { operatorDeps } from '../operator-deps.js';
import type { buildHealth } from './health-parts.js';
import type { buildKnowledge } from './knowledge-parts.js';
import type { buildRuntime } from './runtime-parts.js';
import { McpGrants } from '../../accounts/mcp-grants.js';
import { CallsInFlight } from '../../runtime/mcp-endpoint/calls-in-flight.js';
import { McpClients } from '../../runtime/mcp-endpoint/mcp-clients.js';
import { StoredSessions } from '../../runtime/mcp-endpoint/stored-sessions.js';
import { StoredEvents } from '../../runtime/mcp-endpoint/stored-events.js';
import { DocumentChanges } from '../../runtime/mcp-endpoint/document-changes.js';

interface HttpInputs {
  loaded: LoadedConfig;
  store: Store;
  agents: AgentDirectory;
  health: ReturnType<typeof buildHealth>;
  knowledge: ReturnType<typeof buildKnowledge>;
  runtime: Awaited<ReturnType<typeof buildRuntime>>;
  /** the built-in plugins, for a config reload */
  builtins: LoadedConfig['plugins']['listings'];
  listen?: ListenOverrides;
}

/**
 * What answers requests: the hooks' intake, the platform API, herald as an MCP server, the admin
 * API and console, and the config reload they and the mappings folder ask for. Stopped first: the
 * MCP clients' sessions (their calls in flight cancelled, no new one taken), then the folder watch.
 */
export function buildHttp({ loaded, store, agents, health, knowledge, runtime, builtins, listen }: HttpInputs, logger: Logger, lifecycle: Lifecycle) {
  const { config, plugins } = loaded;
  const { mcp, mcpSessions, models, channelHealth, sharedHealth, replica } = health;
  const { metrics, engine, dispatch, runs, turns, actionContext, transformPool, schedules, instances } = runtime;
  const configTrouble = new ConfigTrouble(config.hooks.mappingsDir, runtime.warnings, health.troubleChanged);
  const keys = new ApiKeyVerifier(config, store.apiKeys);
  const gate = new PlatformGate(keys, new RateLimiter(config.platform.rateLimit.requestsPerMinute), new FailedAuthLimiter('platform', logger));
  // the /v1 routes besides chat completions (their request schemas, the OpenAPI route helpers) load with their first request
  const platform = async () => (await import('../../http/v1/platform-routes.js')).platformRoutes({ config, store, knowledge: knowledge.knowledge, parser: knowledge.parser, gate, turns, agents, files: knowledge.files, vectorStores: knowledge.vectorStores, logger });
  const runWaiter = new RunWaiter(store);
  const intake = new HookIntake({
    engine,
    dispatch,
    idempotency: store.idempotency,
    logger,
    ttlMs: config.hooks.idempotencyTtlHours * 3_600_000,
    // past the longest a request can take (its transform's limit, a reply awaited, then the store), a holder is presumed dead
    lockMs: config.hooks.transformTimeoutMs + 60_000,
    runWaiter,
    completions: new RunCompletionReporter({ store, runWaiter, config, noChannels: () => instances.channels.size === 0 }),
    dispatchKeyed: createKeyedDispatcher({ runs, mainSession: runtime.mainSession, heartbeat: runtime.heartbeat, traffic: (mappingId) => engine.mapping(mappingId)?.traffic }),
  });
  const receipts = new ReceiptRecorder({ config, store, engine, logger });
  const operator = operatorDeps({ loaded, builtins, store, engine, dispatch, runs, receipts, agents, knowledge: knowledge.knowledge, parser: knowledge.parser, logger, actionContext, transformRunner: transformPool, schedules, targetChannels: runtime.targetChannels });
  // one reload at a time: a SIGHUP during a folder-triggered reload waits for it, then reads the file again
  let reloading: Promise<unknown> = Promise.resolve();
  const reload = (reason = 'request', mappingsChanged = false): Promise<ReloadResult> => {
    // the trouble view is updated inside the queue, so a refusal (whose faults may wait for the
    // YAML reader that places them) is never recorded after the reload that follows it
    const next = reloading
      .then(() =>
        reloadGateway({ file: loaded.file, config, plugins, builtins, engine, transformRunner: transformPool, keys, models, channels: instances.accounts, checks: { recipientFault: actionContext.recipientFault, isConfigured: actionContext.isConfigured, accountFault: actionContext.accountFault, toolSpec: actionContext.toolSpec }, tools: mcp, alerts: runtime.alerts, schedules, targetFaults: runtime.configTargetFaults, listen, store, logger }, reason, mappingsChanged),
      )
      .then(async (result) => {
        if (result.ok) {
          // grants and servers may have changed: every MCP client lists its tools again
          void mcpSessions.toolsChanged();
          configTrouble.reloaded(reason, result.warnings ?? [], result.restartRequired);
          // a channel the new config removed is no longer shown
          channelHealth.retain((channel) => instances.channels.has(channel));
        } else await configTrouble.refusedReload(reason, result.faults ?? []);
        return result;
      });
    reloading = next.catch(() => undefined);
    return next;
  };
  const degraded = () => {
    const tools = mcp.degraded();
    return tools && { tools };
  };
  // one pipeline per hot surface, whichever door (Node's request under herald serve, or hono's) a request comes through
  const surfaces = {
    hooks: hookSurface({ config, engine, intake, logger, limiter: new FailedAuthLimiter('hooks', logger), receipts }),
    chat: chatSurface({ config, turns, agents, gate, logger }),
  };
  const documentChanges = new DocumentChanges(store, (uris) => mcpSessions.resourcesChanged(uris));
  const mcpMetrics = metrics && new McpMetrics(metrics.registry, () => mcpSessions.countsByKey());
  const grants = new McpGrants({ state: store.state, accessTokenMinutes: () => config.platform.mcp.oauth.accessTokenMinutes, refreshTokenDays: () => config.platform.mcp.oauth.refreshTokenDays });
  const inFlight = new CallsInFlight(store.toolCalls, () => config.agents.defaults.leaseMs, (err) => logger.warn({ err }, 'the leases of the /mcp calls in flight could not be renewed'));
  const stored = new StoredSessions(store.state, () => config.platform.mcp.sessionIdleMinutes * 60_000);
  const mcpEndpoint = { config, grants, stored, events: new StoredEvents(store.state), inFlight, clients: new McpClients(store.state), agents, turns, search: knowledge.agentKnowledge.search, documents: knowledge.knowledge, logger, gate, sessions: mcpSessions, onCall: mcpMetrics && ((key: string, kind: string, isError: boolean) => mcpMetrics.called(key, kind, isError)), onGovernedCallFinished: metrics && ((server: string, tool: string, outcome: Parameters<HeraldMetrics['toolCallFinished']>[2], seconds?: number) => metrics.toolCallFinished(server, tool, outcome, seconds, 'mcp')) };
  const trouble = { config: () => configTrouble.view(), providers: () => models.health.unhealthy(), channels: () => channelHealth.unhealthy(), replica, others: sharedHealth && (() => sharedHealth.others()) };
  const app = createApp({ mcp: mcpEndpoint, config, logger, store, engine, delivery: runtime.deliveryActions, probe: store.probe, degraded, toolServers: () => mcp.health(), signIns: mcp, trouble, metrics, reload, operator, surfaces, mounts: [{ path: '/v1', build: platform }] });
  const mappingsWatch = new FolderWatch(config.hooks.mappingsDir, () => {
    reload('mappingsDir changed', true).catch((err) => logger.error({ err }, 'config reload failed'));
  }, logger);
  lifecycle.add(
    { name: 'mappings folder watch', start: () => mappingsWatch.start(), stop: () => mappingsWatch.stop() },
    // /mcp's clients are told when a document resource is added or removed (subscriptions, resources/list_changed)
    { name: 'mcp document changes', start: () => (config.platform.mcp.enabled ? documentChanges.start() : undefined), stop: () => documentChanges.stop() },
    // a replica that died with /mcp calls executing: another records them interrupted once their lease runs out
    { name: 'mcp calls left by a dead process', start: () => (config.platform.mcp.enabled ? inFlight.watch(store, (err) => logger.warn({ err }, 'the /mcp calls a dead process left could not be recorded interrupted')) : undefined), stop: () => inFlight.stop() },
    // stopped first: the MCP clients' calls in flight are cancelled, no new one is taken
    { name: 'mcp sessions', stop: () => mcpSessions.closeAll() },
  );
  return { app, withNodeRoutes: nodeRoutes({ config, logger, metrics, surfaces }), mcpSessions, reload };
}
