import fs from 'node:fs';
import type { Server } from 'node:http';
import { listenGateway } from '../http/server/gateway-server.js';
import { parseArgs } from 'node:util';
import { checkHookTokenStrength } from '../config/checks/checks.js';
import { ConfigError } from '../errors.js';
import { loadConfigFile } from '../plugin-host/load-config.js';
import type { PluginSource } from '../plugin-sdk/sdk.js';
import type { StarterSecrets } from '../config/starter-config.js';
import { createGateway } from '../gateway/gateway.js';
import { createLogger, wantsPretty } from '../log/log.js';
import { configPathFrom } from './io/config-path.js';
import type { CliIo } from './io/cli-io.js';
import { shapeHeapForServing } from '../gateway/serving-heap.js';
import { hooksPrefix } from '../config/hooks-path.js';
import { mappingFaultLines } from '../mappings/loading/mapping-fault-lines.js';
import { resolveTracing, tracingLine } from '../tracing/tracing-options.js';

/** `herald serve`: the gateway. Writes a starter config on first run, then listens until a signal. */
export async function serveCommand(argv: string[], io: CliIo, builtins: PluginSource[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, port: { type: 'string' }, host: { type: 'string' }, pretty: { type: 'boolean' } },
  });
  const file = configPathFrom(values.config);
  let starter: StarterSecrets | undefined;
  if (!fs.existsSync(file)) {
    // a first run's only: its module (with yaml, for a .yaml starter) is not part of every start
    starter = (await import('../config/starter-config.js')).writeStarterConfig(file);
    io.err(`No config found: wrote a starter config to ${file}`);
  }
  const loaded = await loadConfigFile(file, { builtins });
  const listen: { host?: string; port?: number } = {};
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: "${values.port}" is not a port (0-65535; 0 picks a free one)`);
    loaded.config.gateway.port = listen.port = port;
  }
  if (values.host !== undefined) {
    loaded.config.gateway.host = listen.host = values.host;
    // a short hook token tolerated on loopback is refused once --host exposes it
    const { faults } = checkHookTokenStrength(loaded.config);
    if (faults.length) throw new ConfigError(faults.map((f) => `${f} (--host ${values.host})`));
  }
  const logger = createLogger({ level: loaded.config.gateway.log.level, pretty: wantsPretty(values.pretty) });
  const gateway = await createGateway(loaded, { logger, builtins, listen }).catch(async (error: unknown) => {
    // worded as `herald config check` words them: where in the mapping file, each unset variable once
    throw error instanceof ConfigError ? new ConfigError(await mappingFaultLines(error.faults, loaded.config.hooks.mappingsDir)) : error;
  });
  await gateway.start();
  // SIGHUP reloads the config (its default action would end the process): handled before
  // "listening" is announced, or a supervisor signalling on that line could kill herald
  const onHangup = () => void gateway.reload('SIGHUP').catch((err) => logger.error({ err }, 'config reload failed'));
  process.on('SIGHUP', onHangup);

  const server = await listenGateway(gateway, loaded.config.gateway.host, loaded.config.gateway.port).catch(async (error: NodeJS.ErrnoException) => {
    process.off('SIGHUP', onHangup);
    await gateway.stop(0);
    // the starter config is written already: without its secrets here, they would never be shown
    if (starter) printStarterSecrets(io, starter, file);
    if (error.code === 'EADDRINUSE') {
      throw new Error(`gateway.port: ${loaded.config.gateway.host}:${loaded.config.gateway.port} is already in use (set another port in ${file} or pass --port)`);
    }
    throw error;
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : loaded.config.gateway.port;
  const base = `http://${loaded.config.gateway.host.includes(':') ? `[${loaded.config.gateway.host}]` : loaded.config.gateway.host}:${port}`;
  logger.info({ url: base, config: file }, 'listening');
  io.err(`herald listening on ${base}`);
  shapeHeapForServing();
  io.err(`config: ${file}`);
  // the gateway started it from the same settings (a fault would have refused the start)
  const tracing = resolveTracing(loaded.config.tracing, '');
  if (tracing && !('fault' in tracing)) io.err(tracingLine(tracing));
  // every start, not only the first: the console is where an operator goes next
  if (loaded.config.gateway.console.enabled) io.err(consoleLine(base, Boolean(loaded.config.gateway.auth.token)));
  if (starter) printStarterHelp(io, base, hooksPrefix(loaded.config.hooks.path), starter, file);

  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  process.off('SIGHUP', onHangup);
  await shutdown(server, gateway, signal);
  return 0;
}

/** how long in-flight requests and runs get to finish after a signal */
const GRACE_MS = 10_000;

/**
 * Graceful stop: no new connections, in-flight requests answered, running runs given the grace
 * period (those still going stay `running` in the store and resume on the next start), then
 * the store closes and the last log lines are flushed.
 */
async function shutdown(server: Server, gateway: Awaited<ReturnType<typeof createGateway>>, signal: string): Promise<void> {
  gateway.logger.info({ signal }, 'shutting down');
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await Promise.race([closed, new Promise((r) => setTimeout(r, GRACE_MS).unref())]);
  server.closeAllConnections();
  await gateway.stop(GRACE_MS);
  gateway.logger.info('stopped');
  await new Promise<void>((resolve) => gateway.logger.flush(() => resolve()));
}

/**
 * The secrets as shell lines whose names are the docs' (`$HOOK_TOKEN`, `$GATEWAY_TOKEN`,
 * `$HERALD_API_KEY`): pasted into a shell, every curl line of the docs runs as printed.
 */
function printStarterSecrets(io: CliIo, secrets: StarterSecrets, file: string): void {
  io.err('');
  io.err(`The starter config ${file} holds these new secrets (shown once; they stay in the file):`);
  io.err(`  export HOOK_TOKEN=${secrets.hookToken}`);
  io.err(`  export GATEWAY_TOKEN=${secrets.gatewayToken}`);
  io.err(`  export HERALD_API_KEY=${secrets.apiKey}`);
}

/** the console's address, and how to sign in (without a gateway token nobody can) */
function consoleLine(base: string, hasToken: boolean): string {
  return `Console: ${base}/console (${hasToken ? 'sign in with the gateway token' : 'set gateway.auth.token to sign in'})`;
}

function printStarterHelp(io: CliIo, base: string, hooksPath: string, secrets: StarterSecrets, file: string): void {
  printStarterSecrets(io, secrets, file);
  io.err('Try it (after the export lines above):');
  io.err(`  curl -s -X POST ${base}${hooksPath}/wake -H "Authorization: Bearer $HOOK_TOKEN" -H 'Content-Type: application/json' -d '{"text":"Hello from curl"}'`);
  io.err(`  curl -s -X POST ${base}${hooksPath}/agent -H "Authorization: Bearer $HOOK_TOKEN" -H 'Content-Type: application/json' -d '{"message":"Summarise the day","deliver":false}'`);
  io.err('');
}
