import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareBaselineDatabase } from '../../bench/baseline-database.js';
import { startChildServer, type ChildServer } from '../../bench/child-server.js';
import { tempDir } from '../helpers/start-herald.js';

// The herald-schema baseline (BENCH_BASELINE_SCHEMA=herald, and `both`, `npm run bench`'s default)
// writes into a file herald's migrations made: it must start there and keep herald's records in
// herald's layout, a session's summary the row after its messages, or the bench stops at it.
const TOKEN = 'baseline-token-0123456789abcdef';
let server: ChildServer;
let dbFile: string;

beforeAll(async () => {
  dbFile = path.join(tempDir('herald-baseline-schema-'), 'baseline.db');
  prepareBaselineDatabase(dbFile, 'herald');
  server = await startChildServer({ name: 'baseline', args: ['--import', 'tsx', path.resolve('bench/baseline-server.ts')], env: { BASELINE_DB: dbFile, BASELINE_TOKEN: TOKEN } });
});
afterAll(() => server?.stop());

const post = (p: string, body: unknown) =>
  fetch(`${server.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('bench baseline server on herald schema', () => {
  it("executes runs into herald's transcript layout: the turns in order, the summary counting them, no index of its own", async () => {
    for (const message of ['first', 'second']) {
      expect((await post('/hooks/agent-executed', { message, name: 'Exec', sessionKey: 'hook:layout' })).status).toBe(202);
      const db = new Database(dbFile, { readonly: true });
      try {
        const finished = () => db.prepare('SELECT COUNT(*) AS n FROM runs WHERE message = ? AND reply IS NOT NULL').get(message) as { n: number };
        for (let i = 0; i < 100 && finished().n < 1; i++) await new Promise((r) => setTimeout(r, 50));
        expect(finished().n).toBe(1);
      } finally {
        db.close();
      }
    }
    const db = new Database(dbFile, { readonly: true });
    try {
      expect(db.prepare(`SELECT id, role, content FROM session_messages WHERE session_key = 'hook:layout' AND id < ${Number.MAX_SAFE_INTEGER} ORDER BY id`).all()).toEqual([
        { id: 1, role: 'user', content: 'first' },
        { id: 2, role: 'assistant', content: expect.stringContaining('Received: "first"') },
        { id: 3, role: 'user', content: 'second' },
        { id: 4, role: 'assistant', content: expect.stringContaining('Received: "second"') },
      ]);
      expect(db.prepare("SELECT messages FROM session_summaries WHERE key = 'hook:layout'").get()).toEqual({ messages: 4 });
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'session_messages_key'").get()).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
