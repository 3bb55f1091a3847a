import { parseArgs } from 'node:util';
import { loadConfigFile } from '../../plugin-host/load-config.js';
import type { PluginSource } from '../../plugin-sdk/sdk.js';
import type { CliIo } from '../io/cli-io.js';
import { configPathFrom } from '../io/config-path.js';
import { gatewayBase, unreachableGateway } from './gateway-address.js';

/**
 * `herald reload`: asks the running gateway to reload its config file (POST /admin/reload with the
 * gateway token), as SIGHUP does, and prints what changed, what waits for a restart, or the faults.
 */
export async function reloadCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' }, url: { type: 'string' } } });
  const file = configPathFrom(values.config);
  const { config } = await loadConfigFile(file, { builtins });
  const token = process.env.HERALD_GATEWAY_TOKEN ?? config.gateway.auth.token;
  if (!token) {
    io.err('herald reload: gateway.auth.token is not set (the admin API needs it); send SIGHUP to the process instead');
    return 2;
  }
  const base = gatewayBase(config.gateway, values.url);
  let response: Response;
  try {
    response = await fetch(`${base}/admin/reload`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    io.err(`herald reload: ${unreachableGateway(base, cause, values.url)}`);
    return 1;
  }
  const body = (await response.json().catch(() => ({}))) as { changed?: string[]; restartRequired?: string[]; error?: string; details?: string[] };
  if (response.status === 200) {
    // a key that needs a restart is not refused: the reload applied the rest, and a restart applies it
    io.out(`reloaded ${file}`);
    io.out(`  applied: ${body.changed?.length ? body.changed.join(', ') : 'nothing changed'}`);
    if (body.restartRequired?.length) io.out(`  waiting for a restart (the running values stay until then): ${body.restartRequired.join(', ')}`);
    return 0;
  }
  // only a file with faults is refused (422): nothing of it applies
  const refused = response.status === 422 ? 'refused: ' : '';
  io.err(`herald reload: ${refused}${response.status} ${body.error ?? response.statusText}`);
  for (const fault of body.details ?? []) io.err(`  ${fault}`);
  return 1;
}
