import type { Logger } from 'pino';
import { presetName, type PluginHost, type PluginState, type PresetEntry } from '../../../src/plugin-sdk/sdk.js';
import type { GmailConfig } from '../config.js';
import { GmailWatcher } from './gmail-watcher.js';

/** The hook the watcher posts to unless hooks.gmail.hookUrl says otherwise. */
export function defaultHookUrl(host: PluginHost['config']): string {
  return `http://127.0.0.1:${host.gateway.port}${host.hooks.path.replace(/\/+$/, '')}/gmail`;
}

/** What keeps the watcher from running with this config; empty when it can run. */
export function watcherFaults(gmail: GmailConfig | undefined, host: PluginHost['config']): string[] {
  if (!gmail?.account) return ['hooks.gmail.account is not set'];
  const faults: string[] = [];
  if (!host.hooks.enabled) faults.push('hooks.enabled is false');
  if (!host.hooks.token) faults.push('hooks.token is not set');
  if (!gmail.oauth) faults.push('hooks.gmail.oauth (clientId, clientSecret, refreshToken) is not set');
  if (!gmail.pushToken && !gmail.pushOidc) faults.push('neither hooks.gmail.pushToken nor hooks.gmail.pushOidc is set (pushes could not be authenticated)');
  if (!gmail.topic) faults.push('hooks.gmail.topic is not set');
  return faults;
}

/**
 * Why mail posted to this config's `<hooks.path>/gmail` would get 404, or undefined when a mapping
 * may handle it: the gmail preset, or a hooks.mappings entry whose path is gmail or unset
 * (files of hooks.mappingsDir are not read here; the watcher's own 404 log covers them).
 */
export function hookRouteFault(host: PluginHost['config']): string | undefined {
  const gmailPath = (entry: PresetEntry) => typeof entry === 'string' || typeof entry.path !== 'string' || entry.path.replace(/^\/+|\/+$/g, '') === 'gmail';
  if (host.hooks.presets?.some((entry) => presetName(entry) === 'gmail' && gmailPath(entry))) return undefined;
  const handles = (host.hooks.mappings ?? []).some((m) => m.match?.path === undefined || m.match.path.replace(/^\/+|\/+$/g, '') === 'gmail');
  if (handles) return undefined;
  return 'hooks.gmail.account is set but no mapping handles path "gmail", so new mail would get 404 and wait. Fix: hooks.presets: add "gmail"';
}

export function watcherFromConfig(gmail: GmailConfig, host: PluginHost['config'], state: PluginState, logger: Logger): GmailWatcher {
  const faults = watcherFaults(gmail, host);
  if (faults.length) throw new Error(`the gmail watcher cannot run: ${faults.join('; ')} (run \`herald webhooks gmail setup\`)`);
  const routeFault = hookRouteFault(host);
  if (routeFault) logger.warn({ fix: 'hooks.presets: add "gmail"' }, routeFault);
  return new GmailWatcher({
    gmail: gmail as ConstructorParameters<typeof GmailWatcher>[0]['gmail'],
    hookUrl: gmail.hookUrl ?? defaultHookUrl(host),
    hookToken: host.hooks.token!,
    state,
    leaseMs: gmail.leaseSeconds * 1000,
    logger,
  });
}
