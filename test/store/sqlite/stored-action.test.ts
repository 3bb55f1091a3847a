import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../../src/store/port.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const action = (message: string) => ({
  kind: 'agent' as const, message, name: 'Alerts', agentId: 'main', wakeMode: 'now' as const, deliver: false, channel: 'last',
  allowUnsafeExternalContent: false, source: { mappingId: 'alerts', path: 'alerts' },
});
const run = (id: string, message: string, createdAt: number): RunRecord => ({
  id, status: 'queued', agentId: 'main', name: 'Alerts', sessionKey: `hook:${id}`, message, action: action(message),
  reply: null, error: null, createdAt, startedAt: null, finishedAt: null,
});

describe("a run's action in SQLite", () => {
  const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-action-')), 'herald.db');

  it('keeps the message once, in its column, and reads the action whole', async () => {
    const at = file();
    const store = openSqliteStore(at);
    stores.push(store);
    const message = 'disk 91% full on db-1 '.repeat(40);
    await store.runs.insert(run('r1', message, 1000));
    const raw = new Database(at, { readonly: true });
    const row = raw.prepare('SELECT message, action FROM runs WHERE id = ?').get('r1') as { message: string; action: string };
    raw.close();
    expect(row.message).toBe(message);
    expect(row.action).not.toContain('disk 91%');
    expect((await store.runs.get('r1'))!.action).toEqual(action(message));
  });

  it('reads an action stored with its message (before it was kept once), and a coalescing join keeps the joined message', async () => {
    const at = file();
    const store = openSqliteStore(at);
    stores.push(store);
    const coalesce = { mappingId: 'alerts', coalesce: { key: 'db', windowMs: 60_000, message: (all: string[]) => all.join(' | ') } };
    await store.runs.admit(run('c1', 'first', Date.now()), coalesce);
    // as an earlier herald wrote it: the message inside the action too
    const raw = new Database(at);
    raw.prepare('UPDATE runs SET action = ? WHERE id = ?').run(JSON.stringify(action('first')), 'c1');
    raw.close();
    expect((await store.runs.get('c1'))!.action.message).toBe('first');
    expect(await store.runs.admit(run('c2', 'second', Date.now()), coalesce)).toMatchObject({ type: 'coalesced', runId: 'c1' });
    const joined = (await store.runs.get('c1'))!;
    expect(joined.message).toBe('first | second');
    expect(joined.action.message).toBe('first | second');
  });
});
