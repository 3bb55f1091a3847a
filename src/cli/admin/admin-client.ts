import { configPathFrom } from '../io/config-path.js';
import { exchange } from './admin-request.js';
import { gatewayAccess } from './gateway-access.js';
import { gatewayBase, unreachableGateway } from './gateway-address.js';
import type { CliIo } from '../io/cli-io.js';

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
export async function adminClient(flags: { config?: string; url?: string }): Promise<AdminClient | string> {
  const gateway = await gatewayAccess(configPathFrom(flags.config));
  const token = process.env.HERALD_GATEWAY_TOKEN ?? gateway.token;
  if (!token) return 'gateway.auth.token is not set (the admin API needs it; or set $HERALD_GATEWAY_TOKEN)';
  const base = gatewayBase(gateway, flags.url);
  return {
    base,
    async call(method, path, body) {
      let answer: { status: number; text: string };
      try {
        answer = await exchange(`${base}/admin${path}`, method, { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, body === undefined ? undefined : JSON.stringify(body));
      } catch (error) {
        const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new Error(unreachableGateway(base, cause, flags.url), { cause: error });
      }
      let parsed: unknown = {};
      try {
        parsed = JSON.parse(answer.text);
      } catch {
        // not JSON (a proxy's error page): the status alone tells
      }
      return { status: answer.status, body: parsed };
    },
  };
}

/**
 * One admin call of `herald <command>`: the client, the call and its failures said on stderr (no
 * gateway token: exit 2; unreachable or an error answer, with the faults it lists: exit 1). The
 * answer when it succeeded, else the exit code.
 */
export async function gatewayAnswer(
  command: string,
  flags: { config?: string; url?: string },
  io: CliIo,
  call: (client: AdminClient) => Promise<AdminAnswer>,
): Promise<AdminAnswer | number> {
  const client = await adminClient(flags);
  if (typeof client === 'string') {
    io.err(`herald ${command}: ${client}`);
    return 2;
  }
  let answer: AdminAnswer;
  try {
    answer = await call(client);
  } catch (error) {
    io.err(`herald ${command}: ${(error as Error).message}`);
    return 1;
  }
  if (answer.status >= 400) {
    io.err(`herald ${command}: ${answer.status} ${answer.body.error ?? ''}`);
    for (const fault of Array.isArray(answer.body.details) ? answer.body.details.slice(1) : []) io.err(`  ${fault}`);
    return 1;
  }
  return answer;
}
