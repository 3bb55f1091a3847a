import pg from 'pg';
import { ConfigError, StoreUnavailableError } from '../../errors.js';

export interface PostgresOptions {
  /** a libpq connection URL: postgres://user@host:5432/db */
  url: string;
  /** the schema herald's tables live in; several deployments may share one database by schema */
  schema?: string;
  /** connections this process keeps open at most */
  poolSize?: number;
  /** every transaction read-only (an eval's sandbox reading the recording): a write fails in the database */
  readOnly?: boolean;
}

export const DEFAULT_SCHEMA = 'public';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** BIGINT (oid 20) holds epoch milliseconds: well inside a JS number, so read it as one, not a string */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** SQLSTATE classes that mean "the server is away", not "this statement is wrong" */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** whether an error from the driver means the database cannot be reached (so the request may be retried) */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_CODES.has(code))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable/i.test(error.message);
}

/** the driver's error, or a typed 503 when it says the database is away */
export function translate(error: unknown): unknown {
  return isConnectionError(error) ? new StoreUnavailableError(error) : error;
}

export function checkSchemaName(schema: string): string {
  // interpolated into DDL and the search_path: only a plain lower-case identifier is accepted
  if (!SCHEMA_NAME.test(schema)) throw new ConfigError([`storage.postgres.schema: "${schema}" is not a plain identifier (lower-case letters, digits, _)`]);
  return schema;
}

/** what every connection of a deployment is opened with (the pool's, and the listener's) */
export function connectionConfig(options: PostgresOptions): pg.ClientConfig {
  const schema = checkSchemaName(options.schema ?? DEFAULT_SCHEMA);
  return {
    connectionString: options.url,
    // every connection sees this deployment's tables first, unqualified
    options: `-c search_path=${schema}${options.readOnly ? ' -c default_transaction_read_only=on' : ''}`,
    // shows which deployment a connection belongs to in pg_stat_activity
    application_name: `herald:${schema}`,
    // a request waits this long for a connection while the database is away, then gets a 503
    connectionTimeoutMillis: 5000,
    types,
  };
}

export function createPool(options: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({ ...connectionConfig(options), max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // an idle connection dropped by the server emits here; without a listener it would crash the
  // process. The pool discards that client and opens a new one on the next query (reconnect).
  pool.on('error', () => {});
  return pool;
}

export type Queryable = pg.Pool | pg.PoolClient;

/** a statement with a name: each connection has PostgreSQL parse and plan it once, not on every call */
export interface Prepared {
  name: string;
  text: string;
}

/**
 * For the statements every request or run sends (a fixed text; never one built per call, or each
 * connection would keep a prepared statement per variant for its whole life).
 */
export const prepared = (name: string, text: string): Prepared => ({ name: `herald_${name}`, text });

/** one statement; a lost connection becomes StoreUnavailableError */
export async function query<R extends pg.QueryResultRow = pg.QueryResultRow>(db: Queryable, text: string | Prepared, values?: unknown[]): Promise<pg.QueryResult<R>> {
  try {
    return await (typeof text === 'string' ? db.query<R>(text, values) : db.query<R>({ name: text.name, text: text.text, values }));
  } catch (error) {
    throw translate(error);
  }
}

const ignoreError = (): void => {};

/**
 * Runs `work` in one transaction on one connection: all of it is committed or none of it
 * (a lost connection rolls back on the server). A client whose connection broke is destroyed,
 * never returned to the pool.
 */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translate(error);
  }
  // a connection lost while held (or as it is destroyed) is also emitted on the client: its
  // query rejects with it already, and an unheard 'error' event would crash the process. Once per
  // client: a pooled client is lent again and again, and a listener per loan piled up on it
  if (!client.listeners('error').includes(ignoreError)) client.on('error', ignoreError);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    // a transaction an error aborted (a work that caught it and went on) answers COMMIT with ROLLBACK, not an error
    const committed = await client.query('COMMIT');
    if (committed.command === 'ROLLBACK') throw new Error('the transaction was rolled back at COMMIT: an error inside it had aborted it');
    return result;
  } catch (error) {
    if (isConnectionError(error)) broken = error as Error;
    else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw translate(error);
  } finally {
    client.release(broken);
  }
}
