import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigValue } from '../helpers/builtins.js';
import { configFaults } from '../helpers/config-faults.js';
import { openStore } from '../../src/store/open-store.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { tempDir } from '../helpers/start-herald.js';

const load = (value: unknown, env: NodeJS.ProcessEnv = {}) => loadConfigValue(value, path.join(tempDir(), 'herald.json'), { env });
const faultsOf = (value: unknown) => configFaults(load(value));

describe('storage config and openStore', () => {
  it('takes storage.postgres with ${ENV} in its url; sqlite stays the default', async () => {
    const { config } = await load({ storage: { postgres: { url: '${DATABASE_URL}', schema: 'herald_a', poolSize: 4 } } }, { DATABASE_URL: 'postgres://u@h/db' });
    expect(config.storage).toEqual({ postgres: { url: 'postgres://u@h/db', schema: 'herald_a', poolSize: 4 } });
    expect((await load({})).config.storage).toMatchObject({ sqlite: expect.stringMatching(/data[/\\]herald\.db$/) });
  });

  it('names the field of a bad postgres setting', async () => {
    expect(await faultsOf({ storage: { postgres: { url: 'postgres://h/db', schema: 'Bad-Name' } } })).toEqual([
      expect.stringMatching(/storage\.postgres\.schema: a lower-case SQL identifier/),
    ]);
    expect(await faultsOf({ storage: { postgres: { url: 'postgres://h/db', poolSize: 0 } } })).toEqual([expect.stringMatching(/storage\.postgres\.poolSize: /)]);
    expect(await faultsOf({ storage: { postgres: {} } })).toEqual([expect.stringMatching(/storage\.postgres\.url: /)]);
  });

  it('opens the SQLite adapter behind the port', async () => {
    const store = await openStore({ storage: { sqlite: path.join(tempDir(), 'herald.db') } });
    await store.probe.ping();
    expect(await store.probe.counts()).toMatchObject({ runs: { queued: 0, running: 0 }, knowledgeDocuments: 0 });
    await store.close();
  });

  it('opens the PostgreSQL adapter for storage.postgres', async () => {
    await requirePostgres();
    const schema = uniqueSchema();
    try {
      const store = await openStore({ storage: { postgres: { url: PG_URL, schema, poolSize: 2 } } });
      await store.probe.ping();
      await store.close();
    } finally {
      await dropSchema(schema);
    }
  });
});
