import { createHash } from 'node:crypto';
import type { HeraldConfig } from './schema.js';

/** Rules across keys that a schema cannot say; each fault names the key at fault. */
export function checkConfig(config: HeraldConfig): string[] {
  const faults: string[] = [];
  const { hooks, gateway, platform, agents } = config;
  if (hooks.enabled && !hooks.token) faults.push('hooks.token: required when hooks.enabled is true');
  if (hooks.path.replace(/\/+$/, '') === '') faults.push('hooks.path: must not be "/" (it would shadow every other route)');
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
  return faults;
}
