import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { limitedStatements } from '../../../src/store/sqlite/limited-statements.js';

describe('limitedStatements', () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (n INTEGER); INSERT INTO t (n) VALUES (1), (2), (3), (4), (5)');
  const first = limitedStatements<[], { n: number }>(db, (limit) => `SELECT n FROM t ORDER BY n LIMIT ${limit}`);

  it('reads as many rows as each limit asks, past the statements it keeps', () => {
    for (let limit = 0; limit <= 20; limit++) expect(first(limit).all().map((r) => r.n)).toEqual([1, 2, 3, 4, 5].slice(0, limit));
  });

  it('prepares a limit once', () => {
    expect(first(3)).toBe(first(3));
  });

  it('refuses a limit that is not a whole number (it is written into the SQL)', () => {
    expect(() => first(2.5)).toThrow(TypeError);
    expect(() => first(Number.NaN)).toThrow(TypeError);
    expect(() => first('1; DROP TABLE t' as unknown as number)).toThrow(TypeError);
  });
});
