import type { HeraldConfig } from './schema.js';

/** addresses that mean "every interface": nobody can be sent back to them */
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * Where people and services reach herald: gateway.publicUrl, else the address it listens on
 * (a wildcard host read as loopback). Read at each use: `serve --port 0` sets the port it got.
 */
export function publicUrlOf(gateway: Pick<HeraldConfig['gateway'], 'host' | 'port' | 'publicUrl'>): string {
  if (gateway.publicUrl) return gateway.publicUrl.replace(/\/+$/, '');
  const host = WILDCARD.has(gateway.host) ? '127.0.0.1' : gateway.host.includes(':') && !gateway.host.startsWith('[') ? `[${gateway.host}]` : gateway.host;
  return `http://${host}:${gateway.port}`;
}
