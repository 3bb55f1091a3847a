import fs from 'node:fs';
import path from 'node:path';
import { substituteEnv } from '../../config/loading/env-substitution.js';
import { readConfigFile } from '../../config/loading/parse-file.js';
import { ConfigError } from '../../errors.js';

/** the gateway's address and admin token as a command that only talks to it needs them */
export interface GatewayAccess {
  host: string;
  port: number;
  token: string | undefined;
}

/** the schema's defaults (config/schema.ts `gateway`) */
const DEFAULT_HOST = '127.0.0.1';
const DEFAULT_PORT = 8787;

/**
 * The config file's `gateway.host`, `gateway.port` and `gateway.auth.token`, read and
 * env-substituted alone. A command that only talks to the running gateway (`runs list`, `cron`,
 * `requests`) needs nothing else: it neither loads the plugins nor checks the whole config (the
 * gateway did at its start; `herald config check` does), which would cost it most of its start.
 * A value of the wrong kind is a fault naming its field, as the full check words it.
 */
export async function gatewayAccess(file: string, env: NodeJS.ProcessEnv = process.env): Promise<GatewayAccess> {
  const absolute = path.resolve(file);
  const raw = (await readConfigFile(absolute)) as { gateway?: unknown } | null;
  const faults: string[] = [];
  const gateway = (substituteEnv(raw?.gateway ?? {}, env, faults, 'gateway') ?? {}) as { host?: unknown; port?: unknown; auth?: { token?: unknown } };
  const { host = DEFAULT_HOST, port = DEFAULT_PORT } = gateway;
  const token = gateway.auth?.token;
  if (typeof host !== 'string') faults.push('gateway.host: expected a string');
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) faults.push('gateway.port: expected an integer from 0 to 65535');
  if (token !== undefined && typeof token !== 'string') faults.push('gateway.auth.token: expected a string');
  if (faults.length) throw new ConfigError(faults.map((f) => `${absolute}: ${f}`));
  return { host: host as string, port: port as number, token: token as string | undefined };
}
