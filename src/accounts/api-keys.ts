import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AgentConfig } from '../config/default-agent.js';
import type { Budget, HeraldConfig } from '../config/schema.js';
import type { ApiKeysRepo } from '../store/port.js';

/** Who called /v1: the key's name and, when limited, the agents it may use. */
export interface ApiPrincipal {
  name: string;
  /** undefined: every agent */
  agents?: string[];
  /** `platform.apiKeys[].budget` (keys made by `herald keys create` have none) */
  budget?: Budget;
  /** `platform.apiKeys[].group`: keys that share conversations and stored responses */
  group?: string;
  /** `platform.apiKeys[].tools`: the tools the key calls itself over /mcp (keys made by `herald keys create` have none) */
  tools?: AgentConfig['tools'];
}

/**
 * Whose a conversation or a stored response is: the group of the key that started it, else that
 * key itself. Any other key is told it does not exist.
 */
export const conversationOwner = (principal: ApiPrincipal): string => (principal.group !== undefined ? `group:${principal.group}` : `key:${principal.name}`);

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** a new key: `hsk_` and 32 random bytes, url-safe */
export const generateApiKey = () => `hsk_${randomBytes(32).toString('base64url')}`;

/** keys whose hash is remembered: a deployment's clients present a handful, a spray of wrong ones is never kept */
const REMEMBERED_KEYS = 1000;

/**
 * Verifies presented API keys against the config's keys and the stored ones. The presented key
 * is hashed and looked up by hash (store keys are read per request, so a key created while
 * the gateway runs works at once); the hash a store gives back is then compared in constant
 * time. A config key is the entry of its hash in a map: what is compared is a digest of the
 * presented key, never the key.
 */
export class ApiKeyVerifier {
  private readonly configured = new Map<string, ApiPrincipal>();
  /**
   * the hash of each key that verified, by the key: a client presents the same key on every call,
   * and its SHA-256 was a measurable part of a chat completion. Only the hash is remembered, never
   * whether the key is good: a stored key is looked up on every call (one revoked stops at once),
   * and a config key in the config's map, which a reload replaces.
   */
  private readonly hashes = new Map<string, string>();

  constructor(
    config: HeraldConfig,
    private readonly stored: ApiKeysRepo,
  ) {
    this.useConfig(config);
  }

  /** the keys of `platform.apiKeys` (again, on a config reload: a removed key stops working at once) */
  useConfig(config: HeraldConfig): void {
    this.configured.clear();
    for (const key of config.platform.apiKeys) {
      const hash = 'key' in key ? hashApiKey(key.key) : key.keyHash.toLowerCase();
      this.configured.set(hash, { name: key.name, ...(key.agents && { agents: key.agents }), ...(key.budget && { budget: key.budget }), ...(key.group !== undefined && { group: key.group }), ...(key.tools && { tools: key.tools }) });
    }
  }

  /**
   * The principal of the presented key, or undefined. A config key is answered as a value (no
   * promise, no microtask on the chat path); a key looked up in the store, as a promise.
   */
  verify(presented: string | undefined): ApiPrincipal | undefined | Promise<ApiPrincipal | undefined> {
    if (!presented) return undefined;
    const remembered = this.hashes.get(presented);
    const hash = remembered ?? hashApiKey(presented);
    const fromConfig = this.configured.get(hash);
    // found under the presented key's own hash: there is no second hash to compare it with
    if (fromConfig) return this.remembered(presented, remembered, hash, fromConfig);
    return this.fromStore(hash).then((candidate) => this.accepted(presented, remembered, hash, candidate));
  }

  /** a stored key's row, whose hash the store gave back, compared in constant time */
  private accepted(presented: string, remembered: string | undefined, hash: string, candidate: { hash: string; principal: ApiPrincipal } | undefined): ApiPrincipal | undefined {
    if (!candidate) return undefined;
    if (!timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(candidate.hash, 'hex'))) return undefined;
    return this.remembered(presented, remembered, hash, candidate.principal);
  }

  /** the presented key's hash kept, so its next request skips hashing it */
  private remembered(presented: string, remembered: string | undefined, hash: string, principal: ApiPrincipal): ApiPrincipal {
    if (remembered === undefined) {
      if (this.hashes.size >= REMEMBERED_KEYS) this.hashes.clear();
      this.hashes.set(presented, hash);
    }
    return principal;
  }

  /** the key of this name (config or store), for a grant that carries its name (herald's OAuth tokens for /mcp) */
  async named(name: string): Promise<ApiPrincipal | undefined> {
    for (const principal of this.configured.values()) if (principal.name === name) return principal;
    const row = await this.stored.get(name);
    return row && { name: row.name, ...(row.agents && { agents: row.agents }) };
  }

  private async fromStore(hash: string): Promise<{ hash: string; principal: ApiPrincipal } | undefined> {
    const row = await this.stored.findByHash(hash);
    return row && { hash: row.keyHash, principal: { name: row.name, ...(row.agents && { agents: row.agents }) } };
  }
}

export const mayUseAgent = (principal: ApiPrincipal, agentId: string) => !principal.agents || principal.agents.includes(agentId);
