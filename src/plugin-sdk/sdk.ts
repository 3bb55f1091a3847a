import type { z } from 'zod';
import type { Logger } from 'pino';
import type { PresetDefinition, PresetEntry } from './preset.js';
import type { PluginRole } from './config-key.js';

// the few host helpers a plugin may use, handed on here so a plugin imports the SDK and nothing else
export type { MappingConfig } from '../config/sections/mapping-schema.js';
export { presetCommonOptions, presetName, definePreset, type PresetDefinition, type PresetEntry, type PresetCommonOptions } from './preset.js';
export { presetRoutes, notListed, type PresetRouteBase } from './preset-routes.js';
export { messageLines } from './message-lines.js';
export { safeEqual } from '../utils/constant-time.js';
// the parts herald's own modules use too, in files of their own so a start evaluates neither the preset helpers nor their schemas
export { ChannelError, type SendFailure } from './channel-error.js';
export { pluginConfigKey, type PluginRole } from './config-key.js';

/**
 * The plugin SDK: the only part of herald a plugin imports. A plugin is one folder under
 * `plugins/<provider>/` whose manifest calls `definePlugin`; herald discovers and registers it.
 */

/** One message to send on a chat platform. */
export interface ChannelMessage {
  /** the recipient on the platform; empty only for channels that need none (webhook) */
  to: string;
  text: string;
  /** stable per delivery: use it as the platform's idempotency key where there is one */
  deliveryId: string;
  /** null for a heartbeat reply */
  runId: string | null;
  sessionKey: string;
  agentId: string;
  createdAt: string;
  /**
   * aborts when herald shuts down. It carries no time limit: each HTTP request gets its own
   * (`requestTimeoutMs`), which `callPlatform` applies; a plugin calling fetch itself uses
   * `deadline(requestTimeoutMs, signal)` per request. One limit for all parts of a long message
   * would cut the last parts short and, on platforms without idempotency, resend the one in flight.
   */
  signal: AbortSignal;
  /** the time limit of one HTTP request to the platform (`delivery.requestTimeoutMs`) */
  requestTimeoutMs?: number;
  /** 1 for the first attempt of this delivery, 2 for its first retry, ... */
  attempt?: number;
  /**
   * the platform thread (or message) the reply belongs to, as the request or mapping gave it
   * (`threadId`): each channel maps it to its own field; a channel without threads ignores it
   */
  threadId?: string;
  /**
   * parts of a split message an earlier attempt already delivered: a retry starts after them
   * (see `sendInParts`), so nobody gets part 1 twice
   */
  partsSent?: number;
  /** called after each part is accepted by the platform; the outbox records the progress */
  onPartSent?(index: number, messageId?: string): Promise<void>;
}

export interface ChannelSendResult {
  /** platform message ids, when the platform returns them */
  messageIds?: string[];
}

/** A channel: sends text to a recipient over the platform's real HTTP API. */
export interface ChannelAdapter {
  send(message: ChannelMessage): Promise<ChannelSendResult>;
  /** false for channels with no recipient (webhook): then a missing `to` is not an error */
  requiresRecipient?: boolean;
}

/** A background service a plugin runs inside `serve` (e.g. the gmail watcher). */
export interface PluginService {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * How the service is doing, read by the `watcher.unhealthy` alert rule. Undefined when this
   * process cannot tell (it is not the replica doing the work): an alert is then neither raised
   * nor resolved from here.
   */
  health?(): ServiceHealth | undefined;
}

/** a service's own account of itself; `problem` is shown to the operator (no secrets, no payload values) */
export interface ServiceHealth {
  healthy: boolean;
  problem?: string;
}

/** A CLI command contributed by a plugin: `herald <group...> <name>`. */
export interface PluginCommand {
  /** words after `herald`, e.g. ["webhooks", "gmail", "setup"] */
  path: string[];
  summary: string;
  /** what follows the words in `--help`'s usage line, e.g. `--account ADDRESS [options]` */
  usage?: string;
  /** free text `--help` prints after the options */
  details?: string;
  /**
   * the options, as node:util parseArgs takes them plus `arg` (placeholder) and `help`: herald
   * prints them in `--help` and refuses an unknown one (naming the nearest) before `run`
   */
  options?: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean; arg?: string; help?: string }>;
  /** takes positional arguments */
  positionals?: boolean;
  run(argv: string[], ctx: PluginCommandContext): Promise<number>;
}

export interface PluginCommandContext {
  /** path of the config file the user pointed at (may not exist yet) */
  configPath: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /**
   * loads and validates the config file as `serve` does (throws ConfigError with every fault) and
   * lends the plugin what `create` gets: its section, the host (config, durable state) and a logger.
   * For commands that work on their own, e.g. `webhooks gmail run`; close() releases the store.
   */
  openHost?(): Promise<PluginCommandHost>;
}

export interface PluginCommandHost {
  /** the plugin's own config section, parsed by its schema; undefined when absent */
  config: unknown;
  host: PluginHost;
  logger: Logger;
  close(): Promise<void>;
}

/** What the host lends a plugin at creation. */
export interface PluginContext<C> {
  /** the plugin's own config section, parsed by its schema; undefined when absent */
  config: C | undefined;
  logger: Logger;
  /** the host's services a plugin may use; typed loosely so plugins stay decoupled */
  host: PluginHost;
}

export interface PluginHost {
  /** the full, validated herald config */
  config: Record<string, unknown> & {
    hooks: { enabled: boolean; token?: string; path: string; presets: PresetEntry[]; mappings: { match?: { path?: string } }[] };
    gateway: { host: string; port: number };
  };
  /** small durable key/value state, namespaced per plugin */
  state: PluginState;
}

export interface PluginState {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  /** runs fn atomically over one key (read, compute, write) */
  update<T>(key: string, fn: (current: T | undefined) => T): Promise<T>;
  delete(key: string): Promise<void>;
  /** deletes this plugin's keys starting with `prefix` last written before `before` (epoch ms); returns how many */
  deleteOlderThan(prefix: string, before: number): Promise<number>;
}

export interface PluginInstance {
  channel?: ChannelAdapter;
  services?: PluginService[];
}

/** What a channel's platform guarantees, as the channel table of docs/channels.md states it. */
export interface ChannelGuarantees {
  /** how the platform recognises a repeated part (and for how long), or why nothing does */
  idempotency: string;
  /** the size above which a reply is split, with its unit */
  splitAbove: string;
  /** what herald does to the text so the platform shows it as written (and pings nobody) */
  escaping: string;
  /** what `threadId` becomes on the platform, or that the channel ignores it */
  threads: string;
}

export interface PluginDefinition<S extends z.ZodType = z.ZodType> {
  id: string;
  roles: PluginRole[];
  /** other names for this plugin's channel, e.g. imsg for imessage */
  aliases?: string[];
  /** ids of plugins this one needs */
  dependsOn?: string[];
  /** one line for the docs (docs/channels.md) */
  summary: string;
  /** where its config lives: `channels.<id>` (default for channels) or `hooks.<id>` (presets) */
  configKey?: string;
  config: S;
  /** notes for the docs: what `to` means on the platform, how to get a token */
  docs?: string;
  /**
   * What a valid `to` looks like on this platform, checked when a hook is accepted (400 naming
   * `to`), so a bad recipient never reaches the outbox. Without it, any `to` without control
   * characters other than `.` and `..` is accepted.
   */
  recipient?: { pattern: RegExp; description: string };
  /** a channel's row in docs/channels.md's table of what each platform guarantees */
  guarantees?: ChannelGuarantees;
  /** a mapping preset (role 'preset'): enabled by its name in `hooks.presets` */
  preset?: PresetDefinition;
  /** CLI commands, available without starting the gateway */
  commands?: PluginCommand[];
  create(ctx: PluginContext<z.output<S>>): PluginInstance | Promise<PluginInstance>;
}

/**
 * Declares a plugin. Its config type is checked here, against its own schema; the result is
 * erased to the plain PluginDefinition the registry holds (the host parses the config first).
 */
export function definePlugin<S extends z.ZodType>(definition: PluginDefinition<S>): PluginDefinition {
  return definition as unknown as PluginDefinition;
}

/**
 * What the host knows of a plugin before it loads it: enough to check the names a config uses,
 * to find the plugin's config section and to check a recipient. Each built-in plugin is listed so
 * (plugins/listings.ts) and loaded only when a config uses it (its section, its preset); the
 * definition `load` gives states the same fields. A plugin a config does not use has nothing
 * to do: it has no section to build a channel from, no preset entry to expand, no service
 * without its section (gmail's watcher needs `hooks.gmail.account`).
 */
export interface PluginListing extends Pick<PluginDefinition, 'id' | 'roles' | 'aliases' | 'dependsOn' | 'configKey' | 'recipient'> {
  load(): Promise<PluginDefinition>;
}

/** a plugin as the host is handed it: defined (a third-party plugin, a test's) or listed (a built-in) */
export type PluginSource = PluginDefinition | PluginListing;

export { deadline, withDeadline, type Deadline } from '../time/deadline.js';
