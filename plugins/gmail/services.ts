import type { PluginContext, PluginInstance } from '../../src/plugin-sdk/sdk.js';
import type { GmailConfig } from './config.js';
import { watcherFaults, watcherFromConfig } from './watcher/watcher-from-config.js';

/**
 * The watcher inside `serve`: only when hooks.enabled and hooks.gmail.account are set and
 * HERALD_SKIP_GMAIL_WATCHER is not 1. An account with an incomplete setup is logged, not fatal.
 */
export async function createGmailServices(ctx: PluginContext<GmailConfig>, env: NodeJS.ProcessEnv = process.env): Promise<PluginInstance> {
  const gmail = ctx.config;
  if (!gmail?.account || !ctx.host.config.hooks.enabled) return {};
  if (env.HERALD_SKIP_GMAIL_WATCHER === '1') {
    ctx.logger.info('gmail watcher off (HERALD_SKIP_GMAIL_WATCHER=1)');
    return {};
  }
  const faults = watcherFaults(gmail, ctx.host.config);
  if (faults.length) {
    ctx.logger.error({ faults }, 'gmail watcher not started: run `herald webhooks gmail setup`');
    return {};
  }
  // imported here, with node:child_process: a serve without a Gmail account never loads either
  const { tailscaleExposure } = await import('./setup/tailscale.js');
  const exposure = tailscaleExposure(gmail, ctx.logger, env);
  // the endpoint is published before the watcher asks Gmail to push to it
  return { services: [...(exposure ? [exposure] : []), watcherFromConfig(gmail, ctx.host.config, ctx.host.state, ctx.logger)] };
}
