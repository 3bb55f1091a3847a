import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AWAITING_DELIVERY } from '../../../src/store/sqlite/deliveries-repo.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/open-database.js';

let db: SqliteDatabase | undefined;
afterEach(() => db?.close());

const plan = (sql: string, ...params: unknown[]) =>
  (db!.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);

describe('SQLite query plans of start-up', () => {
  it('looks for replies awaiting delivery in a range of runs_to_deliver, without reading or sorting every succeeded run', () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    const steps = plan(AWAITING_DELIVERY, 0);
    expect(steps[0]).toBe('SEARCH r USING INDEX runs_to_deliver (finished_at>?)');
    expect(steps.some((s) => s.includes('TEMP B-TREE'))).toBe(false);
  });
});
