import type { Logger } from 'pino';
import type { HeraldConfig } from '../config/schema.js';
import { pluginKeys } from '../config/sections/channel-accounts-schema.js';
import type { Store } from '../store/port.js';
import type { ChannelAdapter, PluginDefinition } from '../plugin-sdk/sdk.js';
import { stateFor } from './plugin-state.js';

/** the id of a channel's one account when its section lists none (OpenClaw's too) */
export const DEFAULT_ACCOUNT = 'default';

/** The accounts of one configured channel, each an adapter of its own. */
export interface ChannelAccounts {
  /** the account a delivery uses when its request named none */
  defaultId: string;
  adapters: Map<string, ChannelAdapter>;
}

/**
 * Each account's config as its plugin takes it: the section's own keys with the account's over
 * them, parsed by the plugin's schema (its defaults applied). A section without accounts is one
 * account, `default`. The config schema has checked every account already (channel-accounts-schema.ts).
 */
export function accountConfigs(plugin: PluginDefinition, section: Record<string, unknown>): { defaultId: string; configs: Map<string, unknown> } {
  const base = pluginKeys(section);
  const accounts = Object.entries((section.accounts ?? {}) as Record<string, Record<string, unknown>>);
  if (!accounts.length) return { defaultId: DEFAULT_ACCOUNT, configs: new Map([[DEFAULT_ACCOUNT, plugin.config.parse(base)]]) };
  const configs = new Map(accounts.map(([id, { name: _name, ...overrides }]) => [id, plugin.config.parse({ ...base, ...overrides })]));
  const named = typeof section.defaultAccount === 'string' ? section.defaultAccount : undefined;
  const defaultId = named ?? (configs.has(DEFAULT_ACCOUNT) ? DEFAULT_ACCOUNT : accounts[0]![0]);
  return { defaultId, configs };
}

/** a channel plugin's adapters, one per account of its section */
export async function createChannelAccounts(plugin: PluginDefinition, section: Record<string, unknown>, config: HeraldConfig, store: Store, logger: Logger): Promise<ChannelAccounts | undefined> {
  const { defaultId, configs } = accountConfigs(plugin, section);
  const adapters = new Map<string, ChannelAdapter>();
  for (const [accountId, accountConfig] of configs) {
    const instance = await plugin.create({
      config: accountConfig,
      logger: logger.child({ plugin: plugin.id, ...(configs.size > 1 && { account: accountId }) }),
      host: { config: config as never, state: stateFor(store, plugin.id) },
    });
    if (instance.channel) adapters.set(accountId, instance.channel);
  }
  return adapters.size ? { defaultId, adapters } : undefined;
}

/** Every configured channel's accounts, kept beside the map of each channel's default adapter. */
export class ChannelAccountsRegistry {
  private readonly byChannel = new Map<string, ChannelAccounts>();

  /** `channels` holds each channel's default account's adapter: what every delivery naming no account sends through */
  constructor(private readonly channels: Map<string, ChannelAdapter>) {}

  set(channel: string, accounts: ChannelAccounts): void {
    this.byChannel.set(channel, accounts);
    this.channels.set(channel, accounts.adapters.get(accounts.defaultId)!);
  }

  delete(channel: string): void {
    this.byChannel.delete(channel);
    this.channels.delete(channel);
  }

  /** the adapter of a channel's account; the default account's when none is named */
  adapter(channel: string, accountId?: string): ChannelAdapter | undefined {
    if (accountId === undefined) return this.channels.get(channel);
    return this.byChannel.get(channel)?.adapters.get(accountId);
  }

  /** why an account cannot be used on a channel, or undefined when it can */
  accountFault(channel: string, accountId: string): string | undefined {
    const accounts = this.byChannel.get(channel);
    if (!accounts) return `"${accountId}" is not an account of channel ${channel} (channel ${channel} is not configured)`;
    if (accounts.adapters.has(accountId)) return undefined;
    return `"${accountId}" is not an account of channel ${channel} (its accounts: ${[...accounts.adapters.keys()].join(', ')})`;
  }
}
