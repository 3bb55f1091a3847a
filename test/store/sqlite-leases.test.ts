import path from 'node:path';
import { afterEach, describe } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';
import { leaseCases } from './leases.case.js';

const opened: SqliteStore[] = [];
afterEach(async () => Promise.all(opened.splice(0).map((s) => s.close())));

describe('sqlite store: leases and claims between two handles on one file', () => {
  leaseCases(async () => {
    const file = path.join(tempDir(), 'herald.db');
    const a = openSqliteStore(file);
    const b = openSqliteStore(file);
    opened.push(a, b);
    return [a, b] as const;
  }, { signalsCrossProcesses: false });
});
