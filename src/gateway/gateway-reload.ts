import type { Logger } from 'pino';
import { loadConfigFile, type LoadedConfig } from '../plugin-host/load-config.js';
import type { HeraldConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { builtinMappings } from '../mappings/loading/builtin-mappings.js';
import type { ActionContext } from '../mappings/hook-action.js';
import type { MappingsEngine } from '../mappings/mappings-engine.js';
import { resolveMappings } from '../mappings/loading/resolve-mappings.js';
import type { TransformRunner } from '../mappings/transforms/transform-runner.js';
import type { ModelRegistry } from '../models/model-registry.js';
import type { ApiKeyVerifier } from '../accounts/api-keys.js';
import { createChannelAccounts, type ChannelAccountsRegistry } from '../plugin-host/channel-accounts.js';
import { pluginSection } from '../plugin-host/plugin-section.js';
import type { PluginRegistry } from '../plugin-host/registry.js';
import type { PluginDefinition, PluginSource } from '../plugin-sdk/sdk.js';
import type { Store } from '../store/port.js';
import type { ReloadResult } from '../http/reload-result.js';
import type { ToolsConfig } from '../config/sections/tools-schema.js';

// http declares what a reload reports (the port of POST /admin/reload); the gateway implements it
export type { ReloadResult };

/**
 * Settings read once at start: the listener, the store, the plugin list, timers and pools sized
 * at start. A reload keeps their running value and names them; everything else (mappings and
 * presets, agents, models, channels, keys, request limits, delivery retries) takes effect at once.
 */
export const RESTART_ONLY = [
  'gateway.host',
  'gateway.port',
  'gateway.metrics',
  'gateway.log',
  'gateway.trustedProxies',
  'hooks.enabled',
  'hooks.path',
  'hooks.idempotencyTtlHours',
  'hooks.mappingsDir',
  'hooks.transformMemoryMb',
  'hooks.gmail',
  'storage',
  'plugins',
  'heartbeat.every',
  'heartbeat.coalesceMs',
  'agents.defaults.maxConcurrent',
  'platform.rateLimit',
  'platform.knowledge',
  'schedules.missedAfter',
  'delivery.concurrency',
  'delivery.leaseMs',
] as const;

export interface ReloadTarget {
  file: string;
  /** the running config: updated in place, so every part holding it sees the new values */
  config: HeraldConfig;
  plugins: PluginRegistry;
  /** the built-in plugins the config is loaded with (third-party ones are named by the file) */
  builtins: PluginSource[];
  engine: MappingsEngine;
  /** the running transform worker pool, which the new mappings' transforms run in too */
  transformRunner: TransformRunner;
  keys: ApiKeyVerifier;
  models: ModelRegistry;
  /** every configured channel's accounts (the default ones also in the map the outbox reads) */
  channels: ChannelAccountsRegistry;
  /** the accept-time checks of an action against the running channels (recipient, configured channel, account), kept across reloads */
  checks?: Pick<ActionContext, 'recipientFault' | 'isConfigured' | 'accountFault' | 'toolSpec'>;
  /** the MCP servers: those whose settings changed are connected again, removed ones stopped, added ones started */
  tools?: { reload(tools: ToolsConfig): Promise<unknown> };
  /** the alert rules and schedule jobs, read again once the new config is in place */
  alerts?: { reconfigure(): void };
  schedules?: { reconfigure(): Promise<void> };
  /** what the start refuses of a config's alert, approval and schedule targets (a channel not configured, ...) */
  targetFaults?: (config: HeraldConfig) => string[];
  /** `herald serve --host/--port`: they stand over the file's values at every reload, as at start */
  listen?: ListenOverrides;
  store: Store;
  logger: Logger;
}

export type ListenOverrides = Partial<Pick<HeraldConfig['gateway'], 'host' | 'port'>>;

const json = (value: unknown) => JSON.stringify(value ?? null);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function get(config: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), config);
}

function set(config: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = config;
  for (const key of keys.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
}

/** the keys (two levels deep: `hooks.mappings`, `agents.list`) whose value differs */
function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const changed: string[] = [];
  for (const section of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[section];
    const b = after[section];
    if (json(a) === json(b)) continue;
    if (!isObject(a) || !isObject(b)) {
      changed.push(section);
      continue;
    }
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) if (json(a[key]) !== json(b[key])) changed.push(`${section}.${key}`);
  }
  return changed;
}

/** replaces `target`'s content with `source`'s, keeping every nested object's identity (parts hold references to them) */
function assignInPlace(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(target)) if (!(key in source)) delete target[key];
  for (const [key, value] of Object.entries(source)) {
    if (isObject(value) && isObject(target[key])) assignInPlace(target[key] as Record<string, unknown>, value);
    else target[key] = value;
  }
}

/**
 * Reloads the config file into a running gateway. The new file is validated and its mappings
 * compiled first; a fault refuses the whole reload (logged, the running config stays). Then the
 * running config is updated in place, the mappings engine, API keys, model providers, changed
 * channels and changed MCP servers replaced, and the restart-only settings that changed are named in the log.
 */
export async function reloadGateway(target: ReloadTarget, reason: string, mappingsChanged = false): Promise<ReloadResult> {
  const { logger } = target;
  let loaded: LoadedConfig;
  let mappings: Awaited<ReturnType<typeof resolveMappings>>;
  const warnings: string[] = [];
  const running = target.config as unknown as Record<string, unknown>;
  let changed: string[];
  let restartRequired: string[];
  try {
    loaded = await loadConfigFile(target.file, { builtins: target.builtins });
    const fresh = loaded.config as unknown as Record<string, unknown>;
    // else a gateway started with --port would see the file's port as a change needing a restart at every reload
    for (const [key, value] of Object.entries(target.listen ?? {})) if (value !== undefined) set(fresh, `gateway.${key}`, value);
    changed = changedKeys(running, fresh);
    restartRequired = RESTART_ONLY.filter((key) => json(get(running, key)) !== json(get(fresh, key)));
    // a restart-only setting keeps its running value (the mappings folder watched, the presets' gmail
    // section), so what runs and what the config object says agree
    for (const key of restartRequired) set(fresh, key, structuredClone(get(running, key)));
    mappings = await resolveMappings(loaded, { ...target.checks, config: loaded.config, channelNames: target.plugins.channelNames(), logger, warnings, transformRunner: target.transformRunner });
    const targetFaults = target.targetFaults?.(loaded.config) ?? [];
    if (targetFaults.length) throw new ConfigError(targetFaults);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const faults = error.faults.map(serverEnvironment);
    logger.error({ reason, config: target.file, faults }, 'config reload refused: the running config stays');
    return { ok: false, changed: [], restartRequired: [], faults };
  }
  const next = structuredClone(loaded.config) as unknown as Record<string, unknown>;
  const channelSections = new Map<string, string>(target.plugins.channels().map((p) => [p.id, json(pluginSection(target.config, p))]));

  assignInPlace(running, next);
  target.engine.replace([...builtinMappings({ ...target.checks, config: target.config, channelNames: target.plugins.channelNames() }), ...mappings]);
  target.keys.useConfig(target.config);
  target.models.useConfig(target.config);
  await reloadChannels(target, channelSections);
  await target.tools?.reload(target.config.tools);
  target.alerts?.reconfigure();
  await target.schedules?.reconfigure();

  const applied = changed.filter((key) => !restartRequired.includes(key));
  if (mappingsChanged) applied.push('mappings/');
  for (const warning of [...loaded.warnings, ...warnings]) logger.warn({ config: target.file }, warning);
  logger.info({ reason, config: target.file, changed: applied }, 'config reloaded');
  if (restartRequired.length) {
    logger.warn({ reason, restartRequired }, `config reloaded, but these settings take effect only after a restart: ${restartRequired.join(', ')}`);
  }
  return { ok: true, changed: applied, restartRequired: [...restartRequired], warnings: [...loaded.warnings, ...warnings] };
}

/**
 * A reload reads `${ENV}` from the running server's environment, fixed when it started: a variable
 * exported in the shell that runs `herald reload` never reaches it. The fault says so.
 */
function serverEnvironment(fault: string): string {
  if (!/environment variable \S+ is not set/.test(fault) && !/\$\{[A-Z0-9_]+\}.*not set/i.test(fault)) return fault;
  return `${fault} (a reload reads the environment herald serve started with, not your shell's: set the variable where the server runs and restart it)`;
}

/** a channel whose section changed gets new adapters (one per account); one whose section is gone is removed */
async function reloadChannels(target: ReloadTarget, before: Map<string, string>): Promise<void> {
  for (const plugin of target.plugins.channels()) {
    const section = pluginSection(target.config, plugin);
    if (json(section) === before.get(plugin.id)) continue;
    // a channel the start did not use is loaded once a reload adds its section
    const accounts = section === undefined ? undefined : await createChannelAccounts((await target.plugins.definition(plugin.id)) as PluginDefinition, section as Record<string, unknown>, target.config, target.store, target.logger);
    if (accounts) target.channels.set(plugin.id, accounts);
    else target.channels.delete(plugin.id);
  }
}
