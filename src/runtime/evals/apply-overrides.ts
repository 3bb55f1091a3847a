import { ConfigError } from '../../errors.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The config file's value with an eval's overrides written in, by dotted key: `agents.<id>.<field>`
 * names the agent of agents.list with that id (`agents.defaults.…` stays the defaults), anything
 * else is a path of objects, made where missing. The result is checked as any config file is.
 */
export function applyOverrides(raw: unknown, overrides: Record<string, unknown>): Json {
  const config: Json = structuredClone(isObject(raw) ? raw : {});
  for (const [key, value] of Object.entries(overrides)) {
    const parts = key.split('.');
    let target: Json = config;
    let rest = parts;
    if (parts[0] === 'agents' && parts.length > 2 && parts[1] !== 'defaults' && parts[1] !== 'list') {
      const agents = isObject(config.agents) ? config.agents : (config.agents = {});
      // the schema's default list ([{ id: 'main' }]) when the file has none
      const list = Array.isArray((agents as Json).list) ? ((agents as Json).list as Json[]) : ((agents as Json).list = [{ id: 'main', name: 'Main' }]) as Json[];
      const agent = list.find((a) => isObject(a) && a.id === parts[1]);
      if (!agent) throw new ConfigError([`${key}: no agent "${parts[1]}" in agents.list (${list.map((a) => a.id).join(', ')})`]);
      target = agent;
      rest = parts.slice(2);
    }
    for (const part of rest.slice(0, -1)) {
      if (!isObject(target[part])) target[part] = {};
      target = target[part] as Json;
    }
    target[rest.at(-1)!] = value;
  }
  return config;
}
