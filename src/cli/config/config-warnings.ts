import type { LoadedConfig } from '../../plugin-host/load-config.js';
import { collectMappingSources } from '../../mappings/loading/resolve-mappings.js';
import { configuredModelRefs, resolveModelRef } from '../../models/model-refs.js';

/**
 * What a valid config will still fail at later, at run time: a delivery to a channel that is not
 * configured, the Gmail watcher without OAuth credentials, a model provider without a key.
 * Warnings, not faults: the gateway starts, and some of these are meant (a local Ollama needs no key).
 */
export async function configWarnings(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const { config, plugins } = loaded;
  const warnings: string[] = [];
  const channels = config.channels as Record<string, unknown>;

  // a fallback target that cannot be sent to fails in its turn, and the reply is lost after all
  const checkFallback = (label: string, fallback: unknown) => {
    if (!Array.isArray(fallback)) return;
    fallback.forEach((target: { channel?: unknown }, i) => {
      if (typeof target?.channel !== 'string') return;
      const id = plugins.resolveChannel(target.channel);
      if (!id) warnings.push(`${label}: fallback[${i}].channel "${target.channel}" is not a channel plugin: that fallback will fail`);
      else if (channels[id] === undefined) warnings.push(`${label}: fallback[${i}].channel "${target.channel}" is not configured (no channels.${id} section): that fallback will fail`);
    });
  };

  for (const source of await collectMappingSourcesSafely(loaded)) {
    const raw = source.raw as { id?: unknown; channel?: unknown; deliver?: unknown; fallback?: unknown } | null;
    if (!raw || raw.deliver === false) continue;
    const label = typeof raw.id === 'string' ? `mapping "${raw.id}" (${source.origin})` : source.origin;
    checkFallback(label, raw.fallback);
    if (typeof raw.channel !== 'string' || raw.channel === 'last' || raw.channel.includes('{{')) continue;
    const id = plugins.resolveChannel(raw.channel);
    if (id && channels[id] === undefined) {
      warnings.push(`${label}: channel "${raw.channel}" is not configured (no channels.${id} section): its deliveries will fail`);
    }
  }
  config.agents.list.forEach((agent, i) => checkFallback(`agents.list[${i}] ("${agent.id}")`, agent.fallback));

  const gmail = (config.hooks as Record<string, unknown>).gmail as { account?: string; oauth?: unknown } | undefined;
  if (gmail?.account && !gmail.oauth) {
    warnings.push(`hooks.gmail.account: "${gmail.account}" is watched but hooks.gmail.oauth (clientId, clientSecret, refreshToken) is not set: the watcher will not start`);
  }

  const warned = new Set<string>();
  for (const { key, ref } of configuredModelRefs(config)) {
    const provider = resolveModelRef(ref, config)?.provider;
    const settings = provider && Object.hasOwn(config.models.providers, provider) ? config.models.providers[provider] : undefined;
    if (!provider || !settings || settings.apiKey || warned.has(provider)) continue;
    warned.add(provider);
    warnings.push(`models.providers.${provider}.apiKey: not set, and ${key} uses "${ref}": ${settings.baseUrl} will refuse it if it needs a key (a local server such as Ollama does not)`);
  }
  void env;
  return warnings;
}

/** mapping files that cannot be read are faults reported by the mappings check, not here */
async function collectMappingSourcesSafely(loaded: LoadedConfig) {
  try {
    return await collectMappingSources(loaded);
  } catch {
    return loaded.config.hooks.mappings.map((raw, i) => ({ origin: `hooks.mappings[${i}]`, raw }));
  }
}
