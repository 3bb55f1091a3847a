import { loadConfigFile } from '../plugin-host/load-config.js';
import type { PluginDefinition } from '../plugin-sdk/sdk.js';
import { configPathFrom } from './config-path.js';

export interface AdminAnswer {
  status: number;
  body: any;
}

/** the running gateway's admin API, as `herald reload` reaches it: the config's address (or --url) and gateway token */
export interface AdminClient {
  base: string;
  call(method: string, path: string, body?: unknown): Promise<AdminAnswer>;
}

/** the client, or why there is none (no gateway token); a gateway that does not answer throws, naming the address */
export async function adminClient(flags: { config?: string; url?: string }, builtins: PluginDefinition[]): Promise<AdminClient | string> {
  const { config } = await loadConfigFile(configPathFrom(flags.config), { builtins });
  const token = process.env.HERALD_GATEWAY_TOKEN ?? config.gateway.auth.token;
  if (!token) return 'gateway.auth.token is not set (the admin API needs it; or set $HERALD_GATEWAY_TOKEN)';
  const { host, port } = config.gateway;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const base = (flags.url ?? `http://${shown}:${port}`).replace(/\/+$/, '');
  return {
    base,
    async call(method, path, body) {
      let response: Response;
      try {
        response = await fetch(`${base}/admin${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
      } catch (error) {
        const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new Error(`cannot reach ${base} (${cause}); is \`herald serve\` running?`, { cause: error });
      }
      return { status: response.status, body: await response.json().catch(() => ({})) };
    },
  };
}
