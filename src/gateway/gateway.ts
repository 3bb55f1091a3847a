import type { RequestListener } from 'node:http';
import { RunWaiter } from '../runtime/runs/run-waiter.js';
import { FailedAuthLimiter } from '../http/auth/failed-auth-limiter.js';
import { chatSurface } from '../http/v1/chat/chat-completions.js';
import { nodeRoutes } from '../http/node-routes.js';
import { hookSurface } from '../http/hooks/hook-surface.js';
import { PlatformGate } from '../http/v1/platform-auth.js';
import { RateLimiter } from '../accounts/rate-limiter.js';
import { RunCompletionReporter } from '../runtime/runs/run-completion-report.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import { AgentDirectory } from '../agents/agent-directory.js';
import type { AgentTurnDeps } from '../agents/agent-turn.js';
import type { HeraldConfig } from '../config/schema.js';
import { createApp } from '../http/create-app.js';
import { createLogger } from '../log/log.js';
import { setVerboseErrors } from '../log/log-detail.js';
import type { PluginDefinition } from '../plugin-sdk/sdk.js';
import { FolderWatch } from './folder-watch.js';
import { HealthLedger } from '../utils/health-ledger.js';
import { ConfigTrouble } from '../runtime/operator/config-trouble.js';
import { replicaId, SharedHealth } from '../runtime/operator/shared-health.js';
import { publicUrlOf } from '../config/public-url.js';
import { troubledParts } from './troubled-parts.js';
import { DropWatch } from '../runtime/drop-watch.js';
import { reloadGateway, type ListenOverrides, type ReloadResult } from './gateway-reload.js';
import { HeraldMetrics } from '../metrics/herald-metrics.js';
import { builtinMappings } from '../mappings/loading/builtin-mappings.js';
import { MappingsEngine } from '../mappings/mappings-engine.js';
import { resolveMappings } from '../mappings/loading/resolve-mappings.js';
import { TransformPool } from '../mappings/transforms/transform-pool.js';
import { ModelRegistry } from '../models/model-registry.js';
import { instantiatePlugins, type PluginInstances } from '../plugin-host/instantiate.js';
import type { LoadedConfig } from '../plugin-host/load-config.js';
import type { PluginRegistry } from '../plugin-host/registry.js';
import { createDispatcher, type DispatchAction } from '../runtime/dispatch-action.js';
import { HookIntake } from '../runtime/hook-intake.js';
import { parseDuration } from '../runtime/duration.js';
import { Heartbeat } from '../runtime/heartbeat.js';
import { heartbeatTurn } from '../runtime/turns/heartbeat-turn.js';
import { MainSession } from '../runtime/main-session.js';
import { DeliveryOutbox } from '../runtime/delivery/delivery-outbox.js';
import type { ReplyDelivery } from '../runtime/delivery/reply-delivery.js';
import { OperatorDeliveryActions } from '../runtime/delivery/delivery-actions.js';
import { RunQueue } from '../runtime/runs/run-queue.js';
import { ChangePublisher, changeTopic, withChangeFeed } from '../runtime/operator/change-feed.js';
import { openStore } from '../store/open-store.js';
import { resumeAfterCrash } from '../runtime/resume-after-crash.js';
import type { Store } from '../store/port.js';
import { platformRoutes } from '../http/v1/platform-routes.js';
import { openAIEmbedder } from '../models/embeddings/embeddings-client.js';
import { extractiveAnswer } from '../knowledge/searching/extractive-answer.js';
import { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { embeddingsEndpoint } from '../models/embeddings/embeddings-endpoint.js';
import { Budgets } from '../accounts/budgets.js';
import { UsageRecorder } from '../accounts/usage-recorder.js';
import { ParsePool } from '../knowledge/parsing/parse-pool.js';
import { ApiKeyVerifier } from '../accounts/api-keys.js';
import { Files } from '../knowledge-stores/files.js';
import { VectorStores } from '../knowledge-stores/vector-stores.js';
import { operatorDeps } from './operator-deps.js';
import { ReceiptRecorder } from '../runtime/receipts/receipt-recorder.js';
import { RetentionPruner } from '../runtime/receipts/retention-pruner.js';
import { AlertEvaluator } from '../runtime/alerts/alert-evaluator.js';
import { alertTargetFaults } from '../runtime/alerts/alert-targets.js';
import { Followups } from '../runtime/schedules/followups.js';
import { scheduleTargetFaults } from '../runtime/schedules/schedule-targets.js';
import { Schedules } from '../runtime/schedules/schedules.js';
import { Approvals } from '../runtime/approvals/approvals.js';
import { PersonQuestions } from '../runtime/questions/person-questions.js';
import { RUN_RESUMABLE_TOPIC } from '../runtime/approvals/decide-approval.js';
import { approvalTargetFaults } from '../runtime/approvals/approval-targets.js';
import { ConfigError } from '../errors.js';
import { builtinTools } from '../tools/builtin/builtin-tools.js';
import { createToolbox } from '../tools/toolbox.js';
import { McpSessions } from '../http/mcp/mcp-sessions.js';
import { McpMetrics } from '../metrics/mcp-metrics.js';
import { McpServers } from '../tools/mcp/mcp-servers.js';
import { flushTracing, startTracing } from '../tracing/tracing.js';
import { resolveTracing } from '../tracing/tracing-options.js';
import { version as heraldVersion } from '../http/openapi/herald-version.js';
import { Lifecycle } from './lifecycle.js';

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

/** the store signal that asks for a heartbeat turn */
const HEARTBEAT_TOPIC = 'heartbeat';

export interface GatewayOptions {
  logger?: Logger;
  /** the built-in plugins, for a config reload (default: every plugin of the running registry) */
  builtins?: PluginDefinition[];
  /** `herald serve --host/--port`, kept over the file's values when the config is reloaded */
  listen?: ListenOverrides;
}

/** Assembles herald from a loaded config: the composition root every command and test uses. */
export async function createGateway(loaded: LoadedConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const { config, plugins } = loaded;
  const logger = options.logger ?? createLogger({ level: config.gateway.log.level });
  setVerboseErrors(logger, config.gateway.log.verboseErrors);
  // before anything can start a span; off, nothing of OpenTelemetry is loaded (tracing.ts)
  const tracing = resolveTracing(config.tracing, heraldVersion);
  if (tracing && 'fault' in tracing) throw new ConfigError([tracing.fault]);
  await startTracing(tracing);
  // every write of a receipt, run, event, message or delivery signals the console's live stream
  const store = withChangeFeed(await openStore(config));
  // before anything can take work or a request: a crashed predecessor's claims are taken back now
  await resumeAfterCrash(store, logger);
  const { probe } = store;
  const parser = new ParsePool(config.platform.knowledge);
  // connected in the background from start(): a server that does not answer never holds herald back
  // a server's change of state reaches the console's live Overview through the change feed
  const replica = replicaId();
  const mcp = new McpServers({
    tools: config.tools,
    baseDir: path.dirname(loaded.file),
    logger,
    state: store.state,
    replica,
    publicUrl: () => publicUrlOf(config.gateway),
    onChange: () => {
      store.signals.publish(changeTopic('tools'));
      sharedHealth?.changed();
    },
  });
  const metrics = config.gateway.metrics.enabled
    ? new HeraldMetrics({
        probe,
        hooksPath: config.hooks.enabled ? config.hooks.path : undefined,
        retainedBytes: () => store.receipts.retainedBytes(),
        openAlerts: () => store.alerts.open(),
        parseWorkers: () => parser.workers,
        toolServers: () => mcp.health(),
      })
    : undefined;
  // a refused reload, a provider or channel failing or recovering reaches the console's live Overview,
  // told once per window however many calls fail (on PostgreSQL each signal is a NOTIFY)
  const troubleFeed = new ChangePublisher(store.signals);
  // replicas sharing PostgreSQL share their unhealthy parts through the store (written on a change,
  // never per call); SQLite serves one process, whose memory is the whole story
  const sharedHealth: SharedHealth | undefined = 'postgres' in config.storage
    ? new SharedHealth({ state: store.state, replica, troubled: () => troubledParts({ providers: models.health, channels: channelHealth, toolServers: mcp.health() }), onWritten: () => troubleFeed.changed(['trouble']), logger })
    : undefined;
  const troubleChanged = () => {
    troubleFeed.changed(['trouble']);
    sharedHealth?.changed();
  };
  const models = new ModelRegistry(config, extractiveAnswer, process.env, troubleChanged);
  const channelHealth = new HealthLedger(troubleChanged);
  const agents = new AgentDirectory(config);
  const drops = new DropWatch(probe, logger);
  const mainSession = new MainSession(store, () => drops.kick());
  const instances = await instantiatePlugins(plugins, config, store, logger);

  const resolveChannel = (name: string) => plugins.resolveChannel(name);
  const targetChannels = { configured: (channel: string) => instances.channels.get(channel), resolveChannel, recipientFault: (channel: string, to: string) => plugins.recipientFault(channel, to) };
  // a reloaded config's targets are judged against its own channel sections (a channel it adds starts with it; one it removes stops)
  const configTargetFaults = (c: HeraldConfig) => {
    const sections = c.channels as Record<string, unknown>;
    const channels = c === config ? targetChannels : { ...targetChannels, configured: (channel: string) => (sections[channel] === undefined ? undefined : (instances.channels.get(channel) ?? { requiresRecipient: false })) };
    return [...alertTargetFaults(c.alerts, channels), ...approvalTargetFaults(c.tools, channels), ...scheduleTargetFaults('schedules.jobs', c.schedules.jobs, channels)];
  };
  const targetFaults = configTargetFaults(config);
  if (targetFaults.length) {
    await store.close();
    throw new ConfigError(targetFaults);
  }
  const outbox = new DeliveryOutbox({
    config,
    store,
    mainSession,
    channels: instances.channels,
    accounts: instances.accounts,
    resolveChannel,
    defaultAgentId: agents.default().id,
    logger,
    health: channelHealth,
  });
  const delivery: ReplyDelivery = outbox;
  const deliveryActions = new OperatorDeliveryActions({ config, store, channels: instances.channels, wake: () => outbox.kick(), logger });
  // approvals by a person: paused runs' calls announced through the outbox, expired ones refused
  const approvals = new Approvals({ config, store, outbox, logger });
  // servers' questions during a hook run's calls go to a person beside the approvals (elicitation)
  mcp.answerQuestionsWith(new PersonQuestions({ store, config: () => config, outbox, logger }));
  const endpoint = embeddingsEndpoint(config);
  const knowledge = new KnowledgeIndex(store.knowledge, { embedder: endpoint && openAIEmbedder(endpoint), logger });
  const { workers, maxFilesInProgressPerKey, maxFilesInProgress } = config.platform.knowledge;
  const vectorStores = new VectorStores({ store, knowledge, parser, agents, logger, limits: { concurrency: workers, perKey: maxFilesInProgressPerKey, total: maxFilesInProgress } });
  const files = new Files(store, (fileId) => vectorStores.forgetFile(fileId));
  // an agent searches its own knowledge and the vector stores attached to it (agents.list[].vectorStores)
  const agentKnowledge = { search: (agentId: string, question: string, limit: number) => vectorStores.searchForAgent(agentId, question, limit) };
  // the one agent turn's needs, shared by hook runs, chat and heartbeats
  const usage = new UsageRecorder(store.usage, config, logger, metrics && ((entry) => metrics.usage.recorded(entry)));
  const budgets = new Budgets(config, store.usage, usage, metrics && ((exceeded) => metrics.usage.refused(exceeded.holder.kind)));
  // herald's own tools act through the outbox, the main session and the knowledge an agent searches
  const builtins = builtinTools({
    searchKnowledge: async (agentId, query, limit) => (await vectorStores.searchForAgent(agentId, query, limit)).map((p) => ({ filename: p.filename, content: p.content })),
    sendMessage: (message) => outbox.deliverToolMessage(message),
    addEvent: async (_agentId, text) => (await mainSession.enqueueSystemEvent(text)) !== undefined,
    // the schedules are made below, with the run queue this tool's turns run in
    scheduleFollowup: (request) => followups.set(request),
  });
  const toolbox = createToolbox(() => config.tools, { mcp, builtins });
  const turns: AgentTurnDeps = { config, models, sessions: store.sessions, knowledge: agentKnowledge, usage, budgets, toolbox, toolCalls: store.toolCalls, onToolCallFinished: metrics && ((server, tool, outcome, seconds) => metrics.toolCallFinished(server, tool, outcome, seconds)) };
  const turn = heartbeatTurn({ config, store, turns, agents, delivery, logger, owner: randomUUID() });
  const heartbeat = new Heartbeat(
    parseDuration(config.heartbeat.every),
    metrics ? metrics.countHeartbeatTurns(turn, (outcome) => outcome.ran) : turn,
    logger,
    config.heartbeat.coalesceMs,
  );
  // a wake on any process reaches the one holding the heartbeat lease (LISTEN/NOTIFY on PostgreSQL)
  const wakeHeartbeat = { request: () => store.signals.publish(HEARTBEAT_TOPIC) };
  const runs = new RunQueue({
    config, store, turns, agents, mainSession, heartbeat: wakeHeartbeat, delivery, logger,
    onRunFinished: metrics && ((status) => metrics.runFinished(status)),
    onDirectCallFinished: metrics && ((source, server, tool, outcome, seconds) => metrics.toolCallFinished(server, tool, outcome, seconds, source)),
    onApprovalNeeded: async (run, pending) => void (await approvals.announce(run, pending)),
  });
  const dispatch = createDispatcher({
    mainSession, heartbeat: wakeHeartbeat, runs,
    // the engine is made below and swapped whole on reload: each run reads its mapping's settings of the moment
    traffic: (mappingId) => engine.mapping(mappingId)?.traffic,
    onAdmitted: metrics && ((mapping, admitted) => metrics.traffic.admitted(mapping, admitted)),
  });
  // a fired isolated job is a run admitted as a hook's (its job's concurrency and rate); a main job an event of the main session
  const schedules = new Schedules({
    config, store, dispatch, mainSession, heartbeat: wakeHeartbeat, defaultAgentId: agents.default().id, logger,
    onFired: metrics && ((id, outcome, lagMs) => metrics.schedules.fired(id, outcome, lagMs)),
  });
  const followups = new Followups({ config, store, schedules });

  const actionContext = {
    config,
    channelNames: plugins.channelNames(),
    recipientFault: (channel: string, to: string) => plugins.recipientFault(channel, to),
    // an explicit channel without its channels.<id> section is refused at accept time (400)
    isConfigured: (channel: string) => instances.channels.has(plugins.resolveChannel(channel) ?? channel),
    // OpenClaw's accountId on a direct /hooks/agent: one of the channel's accounts, else 400 naming it
    accountFault: (channel: string, accountId: string) => instances.accounts.accountFault(plugins.resolveChannel(channel) ?? channel, accountId),
    // a direct call's arguments are checked against its tool's schema as the request is accepted, when its server lists it now
    toolSpec: (name: string) => toolbox.direct(name, { outside: false, canWait: false }).byName(name),
  };
  const warnings = [...loaded.warnings];
  const notes: string[] = [];
  // started by the first transform loaded: a gateway whose mappings have none never starts a worker
  const transformPool = new TransformPool(config.hooks.transformMemoryMb);
  const engine = new MappingsEngine([
    ...builtinMappings(actionContext),
    ...(await resolveMappings(loaded, { ...actionContext, logger, warnings, notes, transformRunner: transformPool }).catch(async (error: unknown) => {
      await transformPool.close();
      throw error;
    })),
  ]);
  for (const warning of warnings) logger.warn({ config: loaded.file }, warning);
  for (const note of notes) logger.info({ config: loaded.file }, note);
  const configTrouble = new ConfigTrouble(config.hooks.mappingsDir, warnings, troubleChanged);
  const keys = new ApiKeyVerifier(config, store.apiKeys);
  const gate = new PlatformGate(keys, new RateLimiter(config.platform.rateLimit.requestsPerMinute), new FailedAuthLimiter('platform', logger));
  const platform = platformRoutes({ config, store, knowledge, parser, gate, turns, agents, files, vectorStores, logger });
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
  });
  const receipts = new ReceiptRecorder({ config, store, engine, logger });
  const pruner = new RetentionPruner({ config, store, logger });
  const operator = operatorDeps({ loaded, builtins: options.builtins ?? plugins.plugins, store, engine, dispatch, runs, receipts, agents, knowledge, parser, logger, actionContext, transformRunner: transformPool, schedules, targetChannels });
  // one reload at a time: a SIGHUP during a folder-triggered reload waits for it, then reads the file again
  let reloading: Promise<unknown> = Promise.resolve();
  const reload = (reason = 'request', mappingsChanged = false): Promise<ReloadResult> => {
    const next = reloading.then(() =>
      reloadGateway({ file: loaded.file, config, plugins, builtins: options.builtins ?? plugins.plugins, engine, transformRunner: transformPool, keys, models, channels: instances.accounts, checks: { recipientFault: actionContext.recipientFault, isConfigured: actionContext.isConfigured, accountFault: actionContext.accountFault, toolSpec: actionContext.toolSpec }, tools: mcp, alerts, schedules, targetFaults: configTargetFaults, listen: options.listen, store, logger }, reason, mappingsChanged),
    );
    reloading = next.catch(() => undefined);
    return next.then((result) => {
      if (result.ok) {
        // grants and servers may have changed: every MCP client lists its tools again
        void mcpSessions.toolsChanged();
        configTrouble.reloaded(reason, result.warnings ?? [], result.restartRequired);
        // a channel the new config removed is no longer shown
        channelHealth.retain((channel) => instances.channels.has(channel));
      } else configTrouble.refusedReload(reason, result.faults ?? []);
      return result;
    });
  };
  const hooksLimiter = new FailedAuthLimiter('hooks', logger);
  const degraded = () => {
    const tools = mcp.degraded();
    return tools && { tools };
  };
  // one pipeline per hot surface, whichever door (Node's request under herald serve, or hono's) a request comes through
  const surfaces = {
    hooks: hookSurface({ config, engine, intake, logger, limiter: hooksLimiter, receipts }),
    chat: chatSurface({ config, turns, agents, gate, logger }),
  };
  // herald as an MCP server (platform.mcp): the sessions this process holds, whatever the config says now
  const mcpSessions = new McpSessions(() => config.platform.mcp);
  const mcpMetrics = metrics && new McpMetrics(metrics.registry, () => mcpSessions.countsByKey());
  const mcpEndpoint = { config, agents, turns, search: agentKnowledge.search, documents: knowledge, logger, gate, sessions: mcpSessions, onCall: mcpMetrics && ((key: string, kind: string, isError: boolean) => mcpMetrics.called(key, kind, isError)), onGovernedCallFinished: metrics && ((server: string, tool: string, outcome: Parameters<HeraldMetrics['toolCallFinished']>[2], seconds?: number) => metrics.toolCallFinished(server, tool, outcome, seconds, 'mcp')) };
  const app = createApp({ mcp: mcpEndpoint, config, logger, store, engine, delivery: deliveryActions, probe, degraded, toolServers: () => mcp.health(), signIns: mcp, trouble: { config: () => configTrouble.view(), providers: () => models.health.unhealthy(), channels: () => channelHealth.unhealthy(), replica, others: sharedHealth && (() => sharedHealth.others()) }, metrics, reload, operator, surfaces, mounts: [{ path: '/v1', app: platform }] });
  const alerts = new AlertEvaluator({
    alerts: config.alerts,
    store,
    outbox,
    channels: instances.channels,
    resolveChannel,
    services: instances.services,
    budgets,
    toolServers: () => mcp.health(),
    expectedSources: () =>
      engine.mappings.flatMap((m) => (typeof m.definition?.expectEvery === 'string' ? [{ mappingId: m.id, afterMs: parseDuration(m.definition.expectEvery) }] : [])),
    requestTimeoutMs: config.delivery.requestTimeoutMs,
    defaultAgentId: agents.default().id,
    metrics: metrics?.alerts,
    logger,
  });
  const mappingsWatch = new FolderWatch(config.hooks.mappingsDir, () => {
    reload('mappingsDir changed', true).catch((err) => logger.error({ err }, 'config reload failed'));
  }, logger);

  let stopping = false;
  let reindexing: Promise<unknown> | undefined;
  let unsubscribeHeartbeat: (() => void) | undefined;
  let unsubscribeResumable: (() => void) | undefined;
  // The running parts, started in this order and stopped in the reverse: what a part needs is
  // above it (the store under everything, the runs after the tools their turns call and before
  // the schedules that make runs, the plugin services and the watches last).
  const lifecycle = new Lifecycle(
    [
      // the spans of the work just finished, sent before the process goes
      { name: 'tracing', stop: () => flushTracing() },
      { name: 'store', stop: () => store.close() },
      { name: 'trouble feed', stop: () => troubleFeed.close() },
      // what this replica saw unhealthy is no longer anyone's trouble once it stops
      { name: 'shared health', start: () => sharedHealth?.start(), stop: () => sharedHealth?.stop() },
      // the last calls' tokens are written before the store closes
      { name: 'usage', stop: () => usage.settled() },
      { name: 'transform workers', stop: () => transformPool.close() },
      { name: 'parse workers', stop: () => parser.close() },
      {
        name: 'knowledge reindex',
        // chunks stored under an older index form are indexed again (segmented and stemmed here) in
        // the background: a large knowledge base does not hold the start back; until its batch is
        // done a chunk is found by its previous index form (SQLite) or not at all (PostgreSQL)
        start: () => {
          reindexing = knowledge.upgrade(() => stopping).then(
            (chunks) => chunks && logger.info({ chunks }, 'knowledge: chunks indexed again for this version'),
            (err) => logger.error({ err }, 'knowledge: indexing chunks again failed; the next start goes on with it'),
          );
        },
        stop: async () => void (await reindexing),
      },
      // files a stopped process left in progress are read again (the same bytes make the same document)
      { name: 'vector stores', start: () => vectorStores.resume(), stop: () => vectorStores.settle() },
      { name: 'delivery', start: () => delivery.start(), stop: () => delivery.stop() },
      { name: 'approvals', start: () => approvals.start(), stop: () => approvals.stop() },
      { name: 'alerts', start: () => alerts.start(), stop: () => alerts.stop() },
      { name: 'retention pruner', start: () => pruner.start(), stop: () => pruner.stop() },
      // connected in the background: a server that does not answer never holds herald back
      { name: 'tool servers', start: () => mcp.start(), stop: () => mcp.stop() },
      {
        name: 'heartbeat',
        start: async () => {
          unsubscribeHeartbeat = store.signals.subscribe(HEARTBEAT_TOPIC, () => heartbeat.request());
          heartbeat.start();
          if ((await store.events.countPending('main')) > 0) heartbeat.request();
        },
        stop: async () => {
          unsubscribeHeartbeat?.();
          await heartbeat.stop();
        },
      },
      {
        name: 'runs',
        start: () => {
          runs.start();
          unsubscribeResumable = store.signals.subscribe(RUN_RESUMABLE_TOPIC, () => runs.claimNow());
        },
        stop: async ({ graceMs }) => {
          unsubscribeResumable?.();
          await runs.stop(graceMs);
        },
      },
      { name: 'schedules', start: () => schedules.start(), stop: () => schedules.stop() },
      ...instances.services.map((service) => ({
        name: `plugin service ${service.name}`,
        start: () => service.start(),
        stop: () => service.stop().catch((err: unknown) => logger.error({ err }, 'service stop failed')),
      })),
      { name: 'drop watch', start: () => drops.start(), stop: () => drops.stop() },
      { name: 'mappings folder watch', start: () => mappingsWatch.start(), stop: () => mappingsWatch.stop() },
    ],
    logger,
  );
  const gateway: Gateway = {
    app,
    withNodeRoutes: nodeRoutes({ config, logger, metrics, surfaces }),
    config,
    plugins,
    store,
    logger,
    models,
    agents,
    mainSession,
    heartbeat,
    runs,
    engine,
    dispatch,
    instances,
    delivery,
    approvals,
    metrics,
    mcp,
    mcpSessions,
    schedules,
    reload,
    start: () => lifecycle.start(),
    async stop(graceMs = 10_000) {
      stopping = true;
      // MCP clients' sessions first: their calls in flight are cancelled, no new one is taken
      await mcpSessions.closeAll();
      await lifecycle.stop({ graceMs });
    },
  };
  return gateway;
}
