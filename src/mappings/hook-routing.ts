import { defaultAgent } from '../config/default-agent.js';
import type { HeraldConfig } from '../config/schema.js';
import { keyHasAllowedPrefix, sessionKeyPrefixes } from '../config/session-key-policy.js';
import { HeraldError } from '../errors.js';

/** where a field came from: a request body (`/agent`) or a mapping (its template or transform) */
export type FieldSource = 'request' | 'mapping';

const invalid = (param: string, message: string) => new HeraldError('HERALD_INVALID_FIELD', message, { param });

/**
 * The agent a hook run goes to. A request's `agentId` must name a configured agent; a mapping's
 * unknown id falls back to the default agent (OpenClaw's legacy rule). The effective agent, the
 * default one included, must pass `hooks.allowedAgentIds` (unset or "*": any; []: none).
 */
export function hookAgentId(requested: string | undefined, source: FieldSource, config: Pick<HeraldConfig, 'agents' | 'hooks'>): string {
  const id = requested?.trim() || undefined;
  const known = id !== undefined && config.agents.list.some((a) => a.id === id);
  if (id !== undefined && !known && source === 'request') throw invalid('agentId', `agentId "${id}" is not a configured agent`);
  const effective = known ? id! : defaultAgent(config).id;
  const allowed = config.hooks.allowedAgentIds;
  if (allowed && !allowed.includes('*') && !allowed.includes(effective)) throw invalid('agentId', 'agentId is not allowed by hooks.allowedAgentIds');
  return effective;
}

/**
 * The session key of a hook run, by OpenClaw's policy: a key a request body chose needs
 * `hooks.allowRequestSessionKey` (herald: unset allows it, the interface documents the field);
 * any chosen key must match `hooks.allowedSessionKeyPrefixes`; none chosen is
 * `hooks.defaultSessionKey`, else undefined (hook:<run id>, admitted by the start checks).
 */
export function hookSessionKey(requested: string | undefined, source: FieldSource, hooks: HeraldConfig['hooks']): string | undefined {
  const key = requested?.trim() || undefined;
  if (key === undefined) return hooks.defaultSessionKey?.trim() || undefined;
  if (source === 'request' && hooks.allowRequestSessionKey === false) {
    throw invalid('sessionKey', 'sessionKey is disabled for external /hooks/agent payloads; set hooks.allowRequestSessionKey=true to enable');
  }
  const prefixes = sessionKeyPrefixes(hooks);
  if (prefixes && !keyHasAllowedPrefix(key, prefixes)) throw invalid('sessionKey', `sessionKey must start with one of: ${prefixes.join(', ')}`);
  return key;
}
