import type { HeraldConfig } from '../../config/schema.js';

/** where a command reaches the running gateway: `--url`, else the config's gateway.host and gateway.port */
export function gatewayBase(gateway: Pick<HeraldConfig['gateway'], 'host' | 'port'>, url: string | undefined): string {
  const { host, port } = gateway;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return (url ?? `http://${shown}:${port}`).replace(/\/+$/, '');
}

/**
 * Why the gateway did not answer. An address read from the config is not where a gateway started
 * with `herald serve --port` (or `--host`) listens: the line says to pass `--url` then.
 */
export function unreachableGateway(base: string, cause: string, url: string | undefined): string {
  const hint = url === undefined ? ` (the config's gateway.host and gateway.port; a gateway started with --port or --host needs --url ${base.replace(/:\d+$/, ':PORT')})` : '';
  return `cannot reach ${base}${hint} (${cause}); is \`herald serve\` running?`;
}
