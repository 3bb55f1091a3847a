import { ConfigError } from '../errors.js';
import type { PostgresStorageOptions, StorageConfig } from '../config/schema.js';
import type { Store } from './port.js';
import { openSqliteStore } from './sqlite/sqlite-store.js';

interface PostgresAdapter {
  openPostgresStore(options: PostgresStorageOptions): Promise<Store>;
}

// a variable, not a literal: the PostgreSQL adapter is written beside this one and may not be
// in this build yet; a literal would fail the type check of every build without it
const postgresAdapter = './postgres/postgres-store.js';

/**
 * Opens the configured store: `storage.sqlite` (the default, embedded) or `storage.postgres`.
 * Every command goes through here, so what sits above src/store/ only ever holds a `Store`.
 * A store that cannot be opened refuses the start with a ConfigError naming the key.
 */
export async function openStore(config: { storage: StorageConfig }): Promise<Store> {
  const { storage } = config;
  if ('sqlite' in storage) return openSqliteStore(storage.sqlite);
  let adapter: PostgresAdapter;
  try {
    adapter = (await import(postgresAdapter)) as PostgresAdapter;
  } catch (error) {
    // only the adapter file itself missing means "not in this build"; a fault inside it is its own error
    const message = String((error as Error).message);
    if (!/postgres-store/.test(message) || !/cannot find|not found|failed to load/i.test(message)) throw error;
    throw new ConfigError(['storage.postgres: this herald has no PostgreSQL adapter yet (src/store/postgres/postgres-store.ts is missing); use storage.sqlite']);
  }
  return adapter.openPostgresStore(storage.postgres);
}
