import type { ListQuery } from '../contracts/operator-port.js';

export interface FilterDialect {
  /** the placeholder of the n-th value (0-based): `@p0` (SQLite, named) or `$1` (PostgreSQL) */
  placeholder(n: number): string;
  /** case-insensitive substring match: LIKE (SQLite, ASCII case-insensitive) or ILIKE */
  like: 'LIKE' | 'ILIKE';
  /**
   * a text field inside a JSON column, written exactly as the adapter's expression indexes are
   * (an index on an expression serves only a query that spells it the same way)
   */
  jsonText(column: string, path: string[]): string;
  /**
   * the mapping that resolved a run's action, as the adapter's runs_mapping index is built: a
   * column on SQLite (an index over the JSON parsed every action inserted), the JSON field on PostgreSQL
   */
  runMapping: string;
  /**
   * a queued or running run, as the adapter's partial index of unfinished runs is conditioned (a
   * list of them must state it to read that index): its finished_at on SQLite, its status on PostgreSQL
   */
  unfinishedRun: string;
  /**
   * the condition of the runs lists' indexes (runs_created, runs_session, runs_mapping) where
   * they hold finished runs only (PostgreSQL): a list reads the unfinished runs apart; none on SQLite
   */
  listedRun?: string;
}

export const sqliteDialect: FilterDialect = {
  placeholder: (n) => `@p${n}`,
  like: 'LIKE',
  jsonText: (column, path) => `json_extract(${column}, '$.${path.join('.')}')`,
  runMapping: 'mapping_id',
  unfinishedRun: 'finished_at IS NULL',
};
export const postgresDialect: FilterDialect = {
  placeholder: (n) => `$${n + 1}`,
  like: 'ILIKE',
  jsonText: (column, path) => postgresJsonText(column, path),
  runMapping: postgresJsonText('action', ['source', 'mappingId']),
  unfinishedRun: "status IN ('queued', 'running')",
  listedRun: "status NOT IN ('queued', 'running')",
};

function postgresJsonText(column: string, path: string[]): string {
  return `(${column}${path.map((p, i) => (i === path.length - 1 ? `->>'${p}'` : `->'${p}'`)).join('')})`;
}

/**
 * Builds the WHERE clause of an operator list, the same for both adapters: named conditions with
 * their values, the time range and the keyset position on (timeColumn, idColumn), newest first.
 * Values are always bound, never spliced into the SQL.
 */
export class ListFilter {
  private readonly clauses: string[] = [];
  readonly values: unknown[] = [];

  constructor(
    readonly dialect: FilterDialect,
    private readonly timeColumn: string,
    private readonly idColumn: string,
  ) {}

  /** a text field inside a JSON column, in this adapter's SQL */
  json(column: string, ...path: string[]): string {
    return this.dialect.jsonText(column, path);
  }

  /** the values by placeholder name (better-sqlite3's named parameters) */
  get named(): Record<string, unknown> {
    return Object.fromEntries(this.values.map((v, i) => [`p${i}`, v]));
  }

  /** binds a value used outside a condition (a select list, a join): its placeholder */
  bind(value: unknown): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length - 1);
  }

  /** adds `sql` (with `?` standing for each value, in order) when every value is defined */
  where(sql: string, ...values: unknown[]): this {
    if (values.some((v) => v === undefined)) return this;
    let i = 0;
    this.clauses.push(sql.replace(/\?/g, () => this.bind(values[i++])));
    return this;
  }

  /** adds `sql` (without values) when `when` holds */
  whereIf(when: boolean | undefined, sql: string): this {
    if (when) this.clauses.push(sql);
    return this;
  }

  /** time range, the cursor, and `q` over the given text columns */
  page(query: ListQuery, textColumns: string[], idValue: (id: string) => unknown = (id) => id): this {
    this.where(`${this.timeColumn} >= ?`, query.since);
    this.where(`${this.timeColumn} <= ?`, query.until);
    if (query.after) {
      const { at, id } = query.after;
      this.where(`(${this.timeColumn} < ? OR (${this.timeColumn} = ? AND ${this.idColumn} < ?))`, at, at, idValue(id));
    }
    if (query.q) {
      const like = `%${query.q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      this.where(`(${textColumns.map((col) => `${col} ${this.dialect.like} ? ESCAPE '\\'`).join(' OR ')})`, ...textColumns.map(() => like));
    }
    return this;
  }

  /** the WHERE clause of the conditions, and of `extra` after them (their values bound with `bind`) */
  sql(...extra: string[]): string {
    const all = extra.length ? [...this.clauses, ...extra] : this.clauses;
    return all.length ? `WHERE ${all.join(' AND ')}` : '';
  }

  /** newest first; the limit is bound like any value */
  order(limit: number): string {
    return `ORDER BY ${this.timeColumn} DESC, ${this.idColumn} DESC LIMIT ${this.bind(limit)}`;
  }
}
