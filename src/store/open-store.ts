import type { StorageConfig } from '../config/schema.js';
import type { Store, StoreOpenOptions as OpenOptions } from './port.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

/**
 * Opens the configured store: `storage.sqlite` (the default, embedded) or `storage.postgres`.
 * Every command goes through here, so what sits above src/store/ only ever holds a `Store`.
 * A store that cannot be opened refuses the start with a ConfigError naming the key.
 */
export async function openStore(config: { storage: StorageConfig }, options: OpenOptions = {}): Promise<Store> {
  const { storage } = config;
  if ('sqlite' in storage) return openSqliteStore(storage.sqlite, options);
  // imported only when asked for: a SQLite deployment never loads the PostgreSQL driver
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return openPostgresStore(storage.postgres, options);
}

