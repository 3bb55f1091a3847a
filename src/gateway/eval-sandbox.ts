import path from 'node:path';
import type { Logger } from 'pino';
import { AgentDirectory } from '../agents/agent-directory.js';
import type { AgentTurnDeps } from '../agents/agent-turn.js';
import { readConfigFile } from '../config/loading/load.js';
import { ConfigError } from '../errors.js';
import { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { ParsePool } from '../knowledge/parsing/parse-pool.js';
import { extractiveAnswer } from '../knowledge/searching/extractive-answer.js';
import { builtinMappings } from '../mappings/loading/builtin-mappings.js';
import { compileDraft } from '../mappings/loading/draft-mapping.js';
import { resolveMappings } from '../mappings/loading/resolve-mappings.js';
import type { MappingContext } from '../mappings/mapping-context.js';
import { MappingsEngine } from '../mappings/mappings-engine.js';
import { TransformPool } from '../mappings/transforms/transform-pool.js';
import { openAIEmbedder } from '../models/embeddings/embeddings-client.js';
import { embeddingsEndpoint } from '../models/embeddings/embeddings-endpoint.js';
import { ModelRegistry } from '../models/model-registry.js';
import { VectorStores } from '../knowledge-stores/vector-stores.js';
import { loadConfigValue, type LoadedConfig } from '../plugin-host/load-config.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';
import { applyOverrides } from '../runtime/evals/apply-overrides.js';
import type { EvalCandidate } from '../runtime/evals/eval-request.js';
import type { EvalRunnerDeps } from '../runtime/evals/eval-runner.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/port.js';
import { builtinTools } from '../tools/builtin/builtin-tools.js';
import { McpServers } from '../tools/mcp/mcp-servers.js';
import { createToolbox } from '../tools/toolbox.js';

/** An eval's world: the candidate's parts over a read-only connection to the recording. */
export interface EvalSandbox {
  deps: EvalRunnerDeps;
  candidate: LoadedConfig;
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** the running config file: the recording's store, and what the overrides apply to */
  configFile: string;
  /** a whole candidate config file instead of the running one with overrides */
  candidateFile?: string;
  candidate: EvalCandidate;
  builtins: PluginSource[];
  logger: Logger;
}

const NEVER = async (): Promise<never> => {
  throw new Error('not executed in an eval');
};

/**
 * Opens the sandbox: the recording's store read-only (never migrated, never written), the
 * candidate's mappings, agents, models and MCP servers; no listener, no outbox, no scheduler, no
 * run queue. Herald's built-in tools that write (send a message, add an event, schedule a
 * follow-up) are listed to the model but have nothing behind them: the replay never calls a write.
 */
export async function openEvalSandbox(options: SandboxOptions): Promise<EvalSandbox> {
  const recordingFile = path.resolve(options.configFile);
  const candidateFile = options.candidateFile ? path.resolve(options.candidateFile) : recordingFile;
  const raw = applyOverrides(await readConfigFile(candidateFile), options.candidate.overrides);
  const candidate = await loadConfigValue(raw, candidateFile, { builtins: options.builtins });
  const recordingConfig = candidateFile === recordingFile ? candidate.config : (await loadConfigValue(await readConfigFile(recordingFile), recordingFile, { builtins: options.builtins })).config;
  const { config } = candidate;
  const models = new ModelRegistry(config, extractiveAnswer);
  if (options.candidate.model) models.resolve(options.candidate.model);
  const store: Store = await openStore(recordingConfig, { readOnly: true });
  const transformPool = new TransformPool(config.hooks.transformMemoryMb);
  const parser = new ParsePool(config.platform.knowledge);
  const mcp = new McpServers({ tools: config.tools, baseDir: path.dirname(candidateFile), logger: options.logger });
  try {
    const ctx: MappingContext = {
      config,
      channelNames: candidate.plugins.channelNames(),
      recipientFault: (channel, to) => candidate.plugins.recipientFault(channel, to),
      // the candidate's channel sections, not plugin instances: nothing is connected in a sandbox
      isConfigured: (channel) => (config.channels as Record<string, unknown>)[candidate.plugins.resolveChannel(channel) ?? channel] !== undefined,
      transformRunner: transformPool,
    };
    let mappings = [...builtinMappings(ctx), ...(await resolveMappings(candidate, ctx))];
    for (const draft of options.candidate.mappings) {
      const compiled = await compileDraft(draft, config, ctx);
      if (!compiled.mapping) throw new ConfigError(compiled.faults.map((f) => `candidate mapping ${String(draft.id ?? '(no id)')}: ${f.field}: ${f.message}`));
      const mapping = compiled.mapping;
      const at = mappings.findIndex((m) => m.id === mapping.id);
      mappings = at >= 0 ? mappings.with(at, mapping) : [...mappings.filter((m) => m.origin === 'built-in'), mapping, ...mappings.filter((m) => m.origin !== 'built-in')];
    }
    const engine = new MappingsEngine(mappings);
    const agents = new AgentDirectory(config);
    const endpoint = embeddingsEndpoint(config);
    const knowledge = new KnowledgeIndex(store.knowledge, { embedder: endpoint && openAIEmbedder(endpoint), logger: options.logger });
    const vectorStores = new VectorStores({ store, knowledge, parser, agents, logger: options.logger, limits: { concurrency: 1, perKey: 1, total: 1 } });
    const search = (agentId: string, question: string, limit: number) => vectorStores.searchForAgent(agentId, question, limit);
    const builtins = builtinTools({
      searchKnowledge: async (agentId, query, limit) => (await search(agentId, query, limit)).map((p) => ({ filename: p.filename, content: p.content })),
      sendMessage: NEVER,
      addEvent: NEVER,
      scheduleFollowup: NEVER,
    });
    mcp.start();
    const toolbox = createToolbox(() => config.tools, { mcp, builtins });
    // every server tried once before the first turn, so the model is offered what it would be live
    await mcp.untilTried(Object.keys(config.tools.mcpServers));
    const turns: AgentTurnDeps = { config, models, sessions: store.sessions, knowledge: { search } };
    return {
      candidate,
      deps: { recording: store, config, engine, agents, models, turns, toolbox },
      async close() {
        await Promise.allSettled([mcp.stop(), transformPool.close(), parser.close()]);
        await store.close();
      },
    };
  } catch (error) {
    await Promise.allSettled([mcp.stop(), transformPool.close(), parser.close(), store.close()]);
    throw error;
  }
}
