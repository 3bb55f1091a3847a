import type { ListQuery } from '../port.js';

/**
 * Builds the WHERE clause of an operator list: named conditions with their values, the time
 * range and the keyset position on (timeColumn, idColumn), newest first. Values are always
 * bound, never spliced into the SQL.
 */
export class ListFilter {
  private readonly clauses: string[] = [];
  readonly params: Record<string, unknown> = {};
  private n = 0;

  constructor(
    private readonly timeColumn: string,
    private readonly idColumn: string,
  ) {}

  /** adds `sql` (with `?` standing for each value, in order) when every value is defined */
  where(sql: string, ...values: unknown[]): this {
    if (values.some((v) => v === undefined)) return this;
    let i = 0;
    this.clauses.push(
      sql.replace(/\?/g, () => {
        const name = `p${this.n++}`;
        this.params[name] = values[i++];
        return `@${name}`;
      }),
    );
    return this;
  }

  /** time range, the cursor, and `q` over the given text columns */
  page(query: ListQuery, textColumns: string[]): this {
    this.where(`${this.timeColumn} >= ?`, query.since);
    this.where(`${this.timeColumn} <= ?`, query.until);
    if (query.after) {
      this.where(`(${this.timeColumn} < ? OR (${this.timeColumn} = ? AND ${this.idColumn} < ?))`, query.after.at, query.after.at, query.after.id);
    }
    if (query.q) {
      const like = `%${query.q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
      this.where(`(${textColumns.map((col) => `${col} LIKE ? ESCAPE '\\'`).join(' OR ')})`, ...textColumns.map(() => like));
    }
    return this;
  }

  sql(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(' AND ')}` : '';
  }

  order(limit: number): string {
    this.params.limit = limit;
    return `ORDER BY ${this.timeColumn} DESC, ${this.idColumn} DESC LIMIT @limit`;
  }
}
