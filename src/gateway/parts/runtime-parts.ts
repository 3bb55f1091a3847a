import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentDirectory } from '../../agents/agent-directory.js';
import type { AgentTurnDeps } from '../../agents/agent-turn.js';
import { Budgets } from '../../accounts/budgets.js';
import { UsageRecorder } from '../../accounts/usage-recorder.js';
import type { HeraldConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import { builtinMappings } from '../../mappings/loading/builtin-mappings.js';
import { resolveMappings } from '../../mappings/loading/resolve-mappings.js';
import { MappingsEngine } from '../../mappings/mappings-engine.js';
import { TransformPool } from '../../mappings/transforms/transform-pool.js';
import { HeraldMetrics } from '../../metrics/herald-metrics.js';
import { instantiatePlugins } from '../../plugin-host/instantiate.js';
import type { LoadedConfig } from '../../plugin-host/load-config.js';
import { AlertEvaluator } from '../../runtime/alerts/alert-evaluator.js';
import { alertTargetFaults } from '../../runtime/alerts/alert-targets.js';
import { approvalTargetFaults } from '../../runtime/approvals/approval-targets.js';
import { Approvals } from '../../runtime/approvals/approvals.js';
import { RUN_RESUMABLE_TOPIC } from '../../runtime/approvals/decide-approval.js';
import { OperatorDeliveryActions } from '../../runtime/delivery/delivery-actions.js';
import { DeliveryOutbox } from '../../runtime/delivery/delivery-outbox.js';
import type { ReplyDelivery } from '../../runtime/delivery/reply-delivery.js';
import { createDispatcher } from '../../runtime/dispatch-action.js';
import { DropWatch } from '../../runtime/drop-watch.js';
import { parseDuration } from '../../runtime/duration.js';
import { Heartbeat } from '../../runtime/heartbeat.js';
import { MainSession } from '../../runtime/main-session.js';
import { PersonQuestions } from '../../runtime/questions/person-questions.js';
import { RetentionPruner } from '../../runtime/receipts/retention-pruner.js';
import { RunQueue } from '../../runtime/runs/run-queue.js';
import { Followups, type FollowupRequest } from '../../runtime/schedules/followups.js';
import { scheduleTargetFaults } from '../../runtime/schedules/schedule-targets.js';
import { Schedules } from '../../runtime/schedules/schedules.js';
import { heartbeatTurn } from '../../runtime/turns/heartbeat-turn.js';
import type { Store } from '../../store/port.js';
import { builtinTools } from '../../tools/builtin/builtin-tools.js';
import { createToolbox } from '../../tools/toolbox.js';
import type { Lifecycle } from '../lifecycle.js';
import type { buildHealth } from './health-parts.js';
import type { buildKnowledge } from './knowledge-parts.js';

/** the store signal that asks for a heartbeat turn */
const HEARTBEAT_TOPIC = 'heartbeat';

interface RuntimeInputs {
  loaded: LoadedConfig;
  store: Store;
  agents: AgentDirectory;
  health: ReturnType<typeof buildHealth>;
  knowledge: ReturnType<typeof buildKnowledge>;
}

/**
 * The work herald does: the plugins' channels, the outbox, approvals, the mappings, the agent
 * turn's needs, heartbeats, runs, schedules and alerts. Their parts start after the knowledge they
 * search and stop before it: the runs after the tools their turns call and before the schedules
 * that make runs, the plugin services and the drop watch last.
 */
export async function buildRuntime({ loaded, store, agents, health, knowledge }: RuntimeInputs, logger: Logger, lifecycle: Lifecycle) {
  const { config, plugins } = loaded;
  const { mcp, models } = health;
  const { probe } = store;
  const metrics = config.gateway.metrics.enabled
    ? new HeraldMetrics({
        probe,
        retainedBytes: () => store.receipts.retainedBytes(),
        openAlerts: () => store.alerts.open(),
        parseWorkers: () => knowledge.parser.workers,
        toolServers: () => mcp.health(),
      })
    : undefined;
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
    health: health.channelHealth,
  });
  const delivery: ReplyDelivery = outbox;
  const deliveryActions = new OperatorDeliveryActions({ config, store, channels: instances.channels, wake: () => outbox.kick(), logger });
  // approvals by a person: paused runs' calls announced through the outbox, expired ones refused
  const approvals = new Approvals({ config, store, outbox, logger });
  // servers' questions during a hook run's calls go to a person beside the approvals (elicitation)
  mcp.answerQuestionsWith(new PersonQuestions({ store, config: () => config, outbox, logger }));
  // the one agent turn's needs, shared by hook runs, chat and heartbeats
  const usage = new UsageRecorder(store.usage, config, logger, metrics && ((entry) => metrics.usage.recorded(entry)));
  const budgets = new Budgets(config, store.usage, usage, metrics && ((exceeded) => metrics.usage.refused(exceeded.holder.kind)));
  // the runtime's one cycle: a turn's tool sets a follow-up, a schedule whose fire runs a turn; closed below, once the schedules exist
  const followupsPort: { set?: (request: FollowupRequest) => Promise<string> } = {};
  // herald's own tools act through the outbox, the main session and the knowledge an agent searches
  const builtins = builtinTools({
    searchKnowledge: async (agentId, query, limit) => (await knowledge.vectorStores.searchForAgent(agentId, query, limit)).map((p) => ({ filename: p.filename, content: p.content })),
    sendMessage: (message) => outbox.deliverToolMessage(message),
    addEvent: async (_agentId, text) => (await mainSession.enqueueSystemEvent(text)) !== undefined,
    scheduleFollowup: (request) => followupsPort.set!(request),
  });
  const toolbox = createToolbox(() => config.tools, { mcp, builtins });

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
  // swapped whole on reload: each run reads its mapping's settings of the moment
  const engine = new MappingsEngine([
    ...builtinMappings(actionContext),
    ...(await resolveMappings(loaded, { ...actionContext, logger, warnings, notes, transformRunner: transformPool }).catch(async (error: unknown) => {
      await transformPool.close();
      throw error;
    })),
  ]);
  for (const warning of warnings) logger.warn({ config: loaded.file }, warning);
  for (const note of notes) logger.info({ config: loaded.file }, note);

  const turns: AgentTurnDeps = { config, models, sessions: store.sessions, knowledge: knowledge.agentKnowledge, usage, budgets, toolbox, toolCalls: store.toolCalls, onToolCallFinished: metrics && ((server, tool, outcome, seconds) => metrics.toolCallFinished(server, tool, outcome, seconds)) };
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
    config, store, agentTurn: turns, agents, mainSession, heartbeat: wakeHeartbeat, delivery, logger,
    onRunFinished: metrics && ((status) => metrics.runFinished(status)),
    onDirectCallFinished: metrics && ((source, server, tool, outcome, seconds) => metrics.toolCallFinished(server, tool, outcome, seconds, source)),
    onApprovalNeeded: async (run, pending) => void (await approvals.announce(run, pending)),
  });
  const dispatch = createDispatcher({
    mainSession, heartbeat: wakeHeartbeat, runs,
    traffic: (mappingId) => engine.mapping(mappingId)?.traffic,
    onAdmitted: metrics && ((mapping, admitted) => metrics.traffic.admitted(mapping, admitted)),
  });
  // a fired isolated job is a run admitted as a hook's (its job's concurrency and rate); a main job an event of the main session
  const schedules = new Schedules({
    config, store, dispatch, defaultAgentId: agents.default().id, logger,
    onFired: metrics && ((id, outcome, lagMs) => metrics.schedules.fired(id, outcome, lagMs)),
  });
  const followups = new Followups({ config, store, schedules });
  followupsPort.set = (request) => followups.set(request);

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
  const pruner = new RetentionPruner({ config, store, logger });

  let unsubscribeHeartbeat: (() => void) | undefined;
  let unsubscribeResumable: (() => void) | undefined;
  lifecycle.add(
    // the last calls' tokens are written before the store closes
    { name: 'usage', stop: () => usage.settled() },
    { name: 'transform workers', stop: () => transformPool.close() },
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
  );
  return { metrics, mainSession, instances, targetChannels, configTargetFaults, delivery, deliveryActions, approvals, usage, budgets, toolbox, actionContext, transformPool, engine, warnings, turns, heartbeat, runs, dispatch, schedules, alerts };
}
