import type { Logger } from 'pino';
import type { AgentDirectory } from '../agents/agent-directory.js';
import type { HeraldConfig } from '../config/schema.js';
import type { OperatorDeps } from '../http/admin/operator-deps.js';
import type { TargetChannels } from '../runtime/alerts/alert-targets.js';
import { jobFaults } from '../runtime/schedules/job-faults.js';
import type { Schedules } from '../runtime/schedules/schedules.js';
import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import type { ParsePool } from '../knowledge/parsing/parse-pool.js';
import type { ActionContext } from '../mappings/hook-action.js';
import type { MappingsEngine } from '../mappings/mappings-engine.js';
import type { TransformRunner } from '../mappings/transforms/transform-runner.js';
import type { DispatchAction } from '../runtime/dispatch-action.js';
import { MappingLab } from '../runtime/operator/mapping-lab.js';
import { createApiKey } from '../accounts/create-api-key.js';
import { replayReceipt } from '../runtime/operator/replay-receipt.js';
import type { ReceiptRecorder } from '../runtime/receipts/receipt-recorder.js';
import type { RunQueue } from '../runtime/runs/run-queue.js';
import type { Store } from '../store/port.js';
import { hooksPrefix } from '../config/hooks-path.js';
import { EvalJobs } from '../runtime/evals/eval-jobs.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';
import { openEvalSandbox } from './eval-sandbox.js';

/** Assembles the operator's use cases for the admin API and the console (part of the composition root). */
export function operatorDeps(deps: {
  loaded: { config: HeraldConfig; file: string };
  /** the plugins a candidate config loads with (an eval's sandbox) */
  builtins: PluginSource[];
  store: Store;
  engine: MappingsEngine;
  dispatch: DispatchAction;
  runs: RunQueue;
  receipts: ReceiptRecorder;
  agents: AgentDirectory;
  knowledge: KnowledgeIndex;
  parser: ParsePool;
  logger: Logger;
  actionContext: Pick<ActionContext, 'config' | 'channelNames'>;
  /** the gateway's transform worker pool: a dry run's transform runs there too, never on the event loop */
  transformRunner: TransformRunner;
  schedules?: Schedules;
  /** the channels a job's delivery is checked against */
  targetChannels?: TargetChannels;
}): OperatorDeps {
  const { config } = deps.loaded;
  const hooksUrl = `http://${config.gateway.host}:${config.gateway.port}${hooksPrefix(config.hooks.path)}`;
  return {
    runs: deps.runs,
    lab: new MappingLab({ config, store: deps.store, engine: deps.engine, ctx: { ...deps.actionContext, logger: deps.logger, transformRunner: deps.transformRunner } }),
    replay: (id) => replayReceipt({ store: deps.store, engine: deps.engine, dispatch: deps.dispatch, recorder: deps.receipts, hooksUrl }, id),
    agents: deps.agents,
    knowledge: deps.knowledge,
    parser: deps.parser,
    keys: {
      async list() {
        const configured = config.platform.apiKeys.map((k) => ({ name: k.name, ...(k.agents && { agents: k.agents }), createdAt: null, source: 'config' as const }));
        const created = (await deps.store.apiKeys.list()).map((k) => ({ name: k.name, ...(k.agents && { agents: k.agents }), createdAt: k.createdAt, source: 'store' as const }));
        return [...configured, ...created];
      },
      create: (input) => createApiKey({ keys: deps.store.apiKeys, config }, input),
      async revoke(name) {
        return deps.store.apiKeys.revoke(name);
      },
    },
    maxUploadBytes: config.platform.maxUploadBytes,
    evals: new EvalJobs({
      configFile: deps.loaded.file,
      open: (candidate) => openEvalSandbox({ configFile: deps.loaded.file, candidate, builtins: deps.builtins, logger: deps.logger }),
    }),
    ...(deps.schedules && deps.targetChannels && { schedules: scheduleBook(deps.schedules, config, deps.targetChannels) }),
  };
}

function scheduleBook(schedules: Schedules, config: HeraldConfig, targets: TargetChannels): NonNullable<OperatorDeps['schedules']> {
  return {
    list: () => schedules.list(),
    get: (id) => schedules.get(id),
    put: (job, existing) => schedules.put(job, existing),
    remove: (id) => schedules.remove(id),
    runNow: (schedule) => schedules.runNow(schedule),
    fires: (id, limit) => schedules.fires(id, limit),
    faults: (job) => jobFaults(job, config, targets, Date.now()),
  };
}
