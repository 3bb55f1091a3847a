import { createHash } from 'node:crypto';
import { isLoopbackHost } from './loopback.js';
import { checkSessionKeyPolicy, isReservedSessionKey, RESERVED_SESSION_KEYS } from '../session-key-policy.js';
import type { HeraldConfig } from '../schema.js';
import { hooksPrefix } from '../hooks-path.js';
import { checkToolsConfig } from './tools-checks.js';
import { checkSchedulesConfig } from './schedules-checks.js';

/** the shortest hook token herald accepts on an address other machines can reach */
export const MIN_EXPOSED_TOKEN_LENGTH = 16;

/**
 * OpenClaw's examples use `token: "shared-secret"`. Short is tolerable while only this machine
 * can reach the gateway (a warning), not once it listens beyond loopback, where a short token
 * is guessable (refused, naming the key and the reason).
 */
export function checkHookTokenStrength(config: Pick<HeraldConfig, 'hooks' | 'gateway'>): { faults: string[]; warnings: string[] } {
  const { token } = config.hooks;
  if (token === undefined || token.length >= MIN_EXPOSED_TOKEN_LENGTH) return { faults: [], warnings: [] };
  const why = `hooks.token: shorter than ${MIN_EXPOSED_TOKEN_LENGTH} characters`;
  if (isLoopbackHost(config.gateway.host)) {
    return { faults: [], warnings: [`${why}; accepted because gateway.host (${config.gateway.host}) is loopback only, use a long random token before exposing it`] };
  }
  return { faults: [`${why}: refused because gateway.host (${config.gateway.host}) is reachable from other machines, where a short token can be guessed (use at least ${MIN_EXPOSED_TOKEN_LENGTH} random characters, e.g. openssl rand -hex 32)`], warnings: [] };
}

/** Rules across keys that a schema cannot say; each fault names the key at fault. */
export function checkConfig(config: HeraldConfig): string[] {
  const faults: string[] = [];
  const { hooks, gateway, platform, agents } = config;
  if (hooks.enabled && !hooks.token) faults.push('hooks.token: required when hooks.enabled is true');
  faults.push(...checkHookTokenStrength(config).faults);
  faults.push(...checkSessionKeyPolicy(hooks));
  const fallbackKey = hooks.defaultSessionKey?.trim();
  if (fallbackKey !== undefined && isReservedSessionKey(fallbackKey)) faults.push(`hooks.defaultSessionKey: ${RESERVED_SESSION_KEYS}`);
  if (hooksPrefix(hooks.path) === '') faults.push('hooks.path: must not be "/" (it would shadow every other route)');
  if (['/v1', '/admin', '/healthz'].some((p) => hooks.path === p || hooks.path.startsWith(`${p}/`))) {
    faults.push(`hooks.path: "${hooks.path}" collides with a built-in route`);
  }
  if (hooks.token) {
    if (gateway.auth.token && hooks.token === gateway.auth.token) {
      faults.push('hooks.token: must differ from gateway.auth.token (use a dedicated hook token)');
    }
    const hookHash = createHash('sha256').update(hooks.token).digest('hex');
    platform.apiKeys.forEach((key, i) => {
      const same = 'key' in key ? key.key === hooks.token : key.keyHash === hookHash;
      if (same) faults.push(`hooks.token: must differ from platform.apiKeys[${i}] ("${key.name}")`);
    });
  }
  if (gateway.auth.token) {
    platform.apiKeys.forEach((key, i) => {
      if ('key' in key && key.key === gateway.auth.token) {
        faults.push(`gateway.auth.token: must differ from platform.apiKeys[${i}] ("${key.name}")`);
      }
    });
  }
  const seen = new Set<string>();
  agents.list.forEach((agent, i) => {
    if (seen.has(agent.id)) faults.push(`agents.list[${i}].id: duplicate agent id "${agent.id}"`);
    seen.add(agent.id);
  });
  const keyNames = new Set<string>();
  platform.apiKeys.forEach((key, i) => {
    if (keyNames.has(key.name)) faults.push(`platform.apiKeys[${i}].name: duplicate key name "${key.name}"`);
    keyNames.add(key.name);
    key.agents?.forEach((id, j) => {
      if (!seen.has(id)) faults.push(`platform.apiKeys[${i}].agents[${j}]: unknown agent "${id}"`);
    });
  });
  faults.push(...checkToolsConfig(config));
  faults.push(...checkSchedulesConfig(config));
  return faults;
}
