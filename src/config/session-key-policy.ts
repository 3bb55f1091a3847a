import type { HeraldConfig } from './schema.js';

/**
 * `hooks.allowedSessionKeyPrefixes` as OpenClaw reads it: trimmed, lower-cased, blanks dropped;
 * undefined (no restriction) when nothing is left.
 */
export function sessionKeyPrefixes(hooks: Pick<HeraldConfig['hooks'], 'allowedSessionKeyPrefixes'>): string[] | undefined {
  const prefixes = [...new Set((hooks.allowedSessionKeyPrefixes ?? []).map((p) => p.trim().toLowerCase()).filter(Boolean))];
  return prefixes.length ? prefixes : undefined;
}

/** case-insensitive, as OpenClaw compares */
export function keyHasAllowedPrefix(key: string, prefixes: string[]): boolean {
  const lower = key.trim().toLowerCase();
  return lower !== '' && prefixes.some((p) => lower.startsWith(p));
}

/** OpenClaw's start-time answers, word for word, so a config that fails there fails here alike. */
export function checkSessionKeyPolicy(hooks: HeraldConfig['hooks']): string[] {
  const prefixes = sessionKeyPrefixes(hooks);
  const fallback = hooks.defaultSessionKey?.trim();
  if (!prefixes) return [];
  if (fallback && !keyHasAllowedPrefix(fallback, prefixes)) return ['hooks.defaultSessionKey: must match hooks.allowedSessionKeyPrefixes'];
  // without a default, a request with no key gets a generated hook:<run id>, which must pass too
  if (!fallback && !keyHasAllowedPrefix('hook:example', prefixes)) return ["hooks.allowedSessionKeyPrefixes: must include 'hook:' when hooks.defaultSessionKey is unset"];
  return [];
}

/**
 * Sessions a hook may not write into: the main session (`main`), the platform's chat
 * conversations (`chat:…`) and the Responses API's (`response:…`, a response's own namespace).
 * A webhook writing there would put raw outside text in front of the heartbeat or a customer,
 * or pass off a hook's exchange as a response's under its id.
 */
export function isReservedSessionKey(key: string): boolean {
  return key === 'main' || key.startsWith('chat:') || key.startsWith('response:');
}

export const RESERVED_SESSION_KEYS = 'must not be "main" or start with "chat:" or "response:" (reserved for the main session, platform conversations and Responses API responses)';
