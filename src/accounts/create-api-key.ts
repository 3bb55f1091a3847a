import type { HeraldConfig } from '../config/schema.js';
import { HeraldError } from '../errors.js';
import type { ApiKeysRepo } from '../store/port.js';
import { generateApiKey, hashApiKey } from './api-keys.js';

/** A key name: what `herald keys` and `POST /admin/keys` accept, and what logs show. */
export const API_KEY_NAME = /^[A-Za-z0-9._-]{1,64}$/;
export const API_KEY_NAME_RULE = 'must be 1-64 letters, digits, . _ -';

export interface CreatedApiKey {
  name: string;
  agents?: string[];
  createdAt: number;
  /** the key itself: shown to the caller once, never stored (only its sha256 is) */
  key: string;
}

/**
 * Creates a platform API key: one use case behind `herald keys create` and `POST /admin/keys`,
 * so both refuse the same names and agents. A name taken by a configured key or a stored one is
 * refused; the store's insert refuses it too, so two creations racing on one name make one key.
 */
export async function createApiKey(
  deps: { keys: ApiKeysRepo; config: Pick<HeraldConfig, 'agents' | 'platform'> },
  input: { name: string; agents?: string[] },
): Promise<CreatedApiKey> {
  const { name, agents } = input;
  if (!API_KEY_NAME.test(name)) throw new HeraldError('HERALD_INVALID_FIELD', `name: ${API_KEY_NAME_RULE}`, { param: 'name' });
  const known = deps.config.agents.list.map((a) => a.id);
  const unknown = agents?.filter((id) => !known.includes(id)) ?? [];
  if (unknown.length) {
    throw new HeraldError('HERALD_INVALID_FIELD', `agents: no agent ${unknown.map((id) => `"${id}"`).join(', ')} (known: ${known.join(', ')})`, { param: 'agents' });
  }
  const taken = () => new HeraldError('HERALD_KEY_NAME_TAKEN', `an API key named "${name}" exists`, { param: 'name' });
  if (deps.config.platform.apiKeys.some((k) => k.name === name)) throw taken();
  const key = generateApiKey();
  const createdAt = Date.now();
  if (!(await deps.keys.create({ name, keyHash: hashApiKey(key), ...(agents && { agents }), createdAt }))) throw taken();
  return { name, ...(agents && { agents }), createdAt, key };
}
