import { ensureTestPostgres, type TestPostgres } from './postgres-server.js';

interface SharedServer {
  server: Promise<TestPostgres>;
  users: number;
}

/**
 * Global setup of every test project: finds the PostgreSQL the tests use, or starts an embedded
 * one (see `postgres-server.ts`), and hands its URL to the test workers as HERALD_TEST_PG_URL.
 * The projects' setups run in one process and share one server, stopped after the last project.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const holder = globalThis as { heraldTestPostgres?: SharedServer };
  holder.heraldTestPostgres ??= {
    users: 0,
    server: ensureTestPostgres({ configuredUrl: process.env.HERALD_TEST_PG_URL, forceEmbedded: process.env.HERALD_TEST_PG === 'embedded' }),
  };
  const shared = holder.heraldTestPostgres;
  shared.users++;
  const { url } = await shared.server;
  process.env.HERALD_TEST_PG_URL = url;
  return async () => {
    if (--shared.users > 0) return;
    delete holder.heraldTestPostgres;
    await (await shared.server).stop();
  };
}
