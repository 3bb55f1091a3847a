/** A platform API key made by `herald keys create`: only its sha256 is kept. */
export interface StoredApiKey {
  name: string;
  /** sha256 hex of the key */
  keyHash: string;
  /** undefined: every agent */
  agents?: string[];
  createdAt: number;
}

export interface ApiKeysRepo {
  /** false when the name (or the hash) is taken */
  create(key: StoredApiKey): Promise<boolean>;
  findByHash(keyHash: string): Promise<StoredApiKey | undefined>;
  get(name: string): Promise<StoredApiKey | undefined>;
  /** oldest first */
  list(): Promise<StoredApiKey[]>;
  revoke(name: string): Promise<boolean>;
}
