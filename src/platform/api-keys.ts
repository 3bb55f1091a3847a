import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { HeraldConfig } from '../config/schema.js';
import type { SqliteDatabase } from '../store/sqlite/open-database.js';

/** Who called /v1: the key's name and, when limited, the agents it may use. */
export interface ApiPrincipal {
  name: string;
  /** undefined: every agent */
  agents?: string[];
}

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** a new key: `hsk_` and 32 random bytes, url-safe */
export const generateApiKey = () => `hsk_${randomBytes(32).toString('base64url')}`;

interface KeyRow {
  name: string;
  key_hash: string;
  agents: string | null;
  created_at: number;
}

export interface StoredApiKey extends ApiPrincipal {
  createdAt: number;
}

/** Keys made by `herald keys create`: only their sha256 is kept. */
export class ApiKeyStore {
  private readonly insert;
  private readonly byHash;
  private readonly byName;
  private readonly all;
  private readonly remove;

  constructor(db: SqliteDatabase) {
    this.insert = db.prepare<[string, string, string | null, number]>('INSERT INTO api_keys (name, key_hash, agents, created_at) VALUES (?, ?, ?, ?)');
    this.byHash = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE key_hash = ?');
    this.byName = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE name = ?');
    this.all = db.prepare<[], KeyRow>('SELECT * FROM api_keys ORDER BY created_at, name');
    this.remove = db.prepare<[string]>('DELETE FROM api_keys WHERE name = ?');
  }

  create(name: string, keyHash: string, agents?: string[]): void {
    this.insert.run(name, keyHash, agents ? JSON.stringify(agents) : null, Date.now());
  }

  findByHash(keyHash: string): (StoredApiKey & { keyHash: string }) | undefined {
    const row = this.byHash.get(keyHash);
    return row && { ...toKey(row), keyHash: row.key_hash };
  }

  has(name: string): boolean {
    return this.byName.get(name) !== undefined;
  }

  list(): StoredApiKey[] {
    return this.all.all().map(toKey);
  }

  revoke(name: string): boolean {
    return this.remove.run(name).changes > 0;
  }
}

const toKey = (row: KeyRow): StoredApiKey => ({
  name: row.name,
  ...(row.agents && { agents: JSON.parse(row.agents) as string[] }),
  createdAt: row.created_at,
});

/**
 * Verifies presented API keys against the config's keys and the stored ones. The presented key
 * is hashed and looked up by hash (store keys are read per request, so a key created while
 * the gateway runs works at once); the found hash is then compared in constant time.
 */
export class ApiKeyVerifier {
  private readonly configured = new Map<string, ApiPrincipal>();

  constructor(
    config: HeraldConfig,
    private readonly stored: ApiKeyStore,
  ) {
    for (const key of config.platform.apiKeys) {
      const hash = 'key' in key ? hashApiKey(key.key) : key.keyHash.toLowerCase();
      this.configured.set(hash, { name: key.name, ...(key.agents && { agents: key.agents }) });
    }
  }

  verify(presented: string | undefined): ApiPrincipal | undefined {
    if (!presented) return undefined;
    const hash = hashApiKey(presented);
    const fromConfig = this.configured.get(hash);
    const candidate = fromConfig ? { hash, principal: fromConfig } : this.fromStore(hash);
    if (!candidate) return undefined;
    return timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(candidate.hash, 'hex')) ? candidate.principal : undefined;
  }

  private fromStore(hash: string): { hash: string; principal: ApiPrincipal } | undefined {
    const row = this.stored.findByHash(hash);
    return row && { hash: row.keyHash, principal: { name: row.name, ...(row.agents && { agents: row.agents }) } };
  }
}

export const mayUseAgent = (principal: ApiPrincipal, agentId: string) => !principal.agents || principal.agents.includes(agentId);
