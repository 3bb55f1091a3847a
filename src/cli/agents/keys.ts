import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import { createApiKey } from '../../accounts/create-api-key.js';
import { HeraldError } from '../../errors.js';
import { openStore } from '../../store/open-store.js';
import type { ApiKeysRepo } from '../../store/port.js';
import type { CliIo } from '../io/cli-io.js';
import { textTable } from '../io/text-table.js';
import { configPathFrom } from '../io/config-path.js';

/** opens the store of the config at --config, runs `fn` with its key table, closes it */
async function withKeyStore<T>(configFlag: string | undefined, builtins: PluginSource[], fn: (keys: ApiKeysRepo, config: Awaited<ReturnType<typeof loadConfigFile>>['config']) => Promise<T>): Promise<T> {
  const { config } = await loadConfigFile(configPathFrom(configFlag), { builtins });
  const store = await openStore(config);
  try {
    return await fn(store.apiKeys, config);
  } finally {
    await store.close();
  }
}

/**
 * `herald keys create --name N [--agents a,b]`: a new platform API key. Only its sha256 is
 * stored; the key itself is printed once, here, and cannot be shown again. A running gateway
 * accepts it at once (keys are looked up in the store per request).
 */
export async function keysCreateCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { name: { type: 'string' }, agents: { type: 'string' }, config: { type: 'string', short: 'c' } } });
  if (!values.name) {
    io.err('herald: --name is missing. usage: herald keys create --name NAME [--agents id1,id2] [--config FILE]');
    return 2;
  }
  const name = values.name;
  const agents = values.agents?.split(',').map((a) => a.trim()).filter(Boolean);
  return withKeyStore(values.config, builtins, async (keys, config) => {
    try {
      const created = await createApiKey({ keys, config }, { name, ...(agents && { agents }) });
      io.out(created.key);
      io.err(`API key "${name}" created${agents ? ` for ${agents.join(', ')}` : ' for every agent'}. It is shown only this once: store it now.`);
      return 0;
    } catch (err) {
      if (!(err instanceof HeraldError)) throw err;
      io.err(`herald: ${err.message}`);
      return 1;
    }
  });
}

/** `herald keys list`: names, agent limits and creation dates of stored and configured keys (never a key) */
export async function keysListCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
  return withKeyStore(values.config, builtins, async (keys, config) => {
    // a key of the config file has no creation date: it is as old as the file's line
    const rows = [
      ...config.platform.apiKeys.map((k) => [k.name, 'config', k.agents?.join(',') ?? '*', '-']),
      ...(await keys.list()).map((k) => [k.name, 'store', k.agents?.join(',') ?? '*', new Date(k.createdAt).toISOString()]),
    ];
    if (!rows.length) io.out('no API keys');
    else for (const text of textTable([['NAME', 'SOURCE', 'AGENTS', 'CREATED'], ...rows])) io.out(text);
    return 0;
  });
}

/** `herald keys revoke --name N`: removes a stored key (config keys are removed from the config) */
export async function keysRevokeCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { name: { type: 'string' }, config: { type: 'string', short: 'c' } } });
  if (!values.name) {
    io.err('herald: --name is missing. usage: herald keys revoke --name NAME [--config FILE]');
    return 2;
  }
  return withKeyStore(values.config, builtins, async (keys) => {
    if (!(await keys.revoke(values.name!))) {
      io.err(`herald: no stored API key named "${values.name}"`);
      return 1;
    }
    io.out(`revoked ${values.name}`);
    return 0;
  });
}
