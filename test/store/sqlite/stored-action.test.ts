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
    const coalesce = { mappingId: 'alerts', coalesce: { key: 'db', windowMs: 60_000, list: { heading: 'all:', marker: (n: number) => ` | ${n}. ` }, maxEvents: 50, maxBytes: 262_144 } };
    await store.runs.admit(run('c1', 'first', Date.now()), coalesce);
    // as an earlier herald wrote it: the message inside the action too
    const raw = new Database(at);
    raw.prepare('UPDATE runs SET action = ? WHERE id = ?').run(JSON.stringify(action('first')), 'c1');
    raw.close();
    expect((await store.runs.get('c1'))!.action.message).toBe('first');
    expect(await store.runs.admit(run('c2', 'second', Date.now()), coalesce)).toMatchObject({ type: 'coalesced', runId: 'c1' });
    const joined = (await store.runs.get('c1'))!;
    expect(joined.message).toBe('all: | 1. first | 2. second');
    expect(joined.action.message).toBe('all: | 1. first | 2. second');
  });

  it('checks each distinct action once, yet stores and reads every run as a parse of its own would', async () => {
    const at = file();
    const store = openSqliteStore(at);
    stores.push(store);
    // a field the schema does not know is dropped, the fields are stored in the schema's order
    const unordered = (message: string) => Object.fromEntries(Object.entries({ ...action(message), extra: 'dropped' }).reverse());
    for (let i = 0; i < 3; i++) await store.runs.insert({ ...run(`m${i}`, `message ${i}`, 1000 + i), action: unordered(`message ${i}`) as unknown as RunRecord['action'] });
    const raw = new Database(at);
    const texts = raw.prepare("SELECT action FROM runs WHERE id LIKE 'm%' ORDER BY id").pluck().all() as string[];
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toBe(JSON.stringify({ kind: 'agent', name: 'Alerts', agentId: 'main', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'alerts', path: 'alerts' } }));
    const read = await Promise.all(['m0', 'm1', 'm2'].map(async (id) => (await store.runs.get(id))!.action));
    read.forEach((a, i) => {
      expect(a).toEqual(action(`message ${i}`));
      expect(Object.keys(a)).toEqual(Object.keys(action('')));
    });
    // a text another program wrote wrongly, even one equal to a text read before but for a field, fails naming its run
    raw.prepare('UPDATE runs SET action = ? WHERE id = ?').run(texts[0]!.replace('"wakeMode":"now"', '"wakeMode":"sometimes"'), 'm1');
    // one stored before actions named their agent takes the run's
    raw.prepare('UPDATE runs SET action = ?, agent_id = ? WHERE id = ?').run(texts[0]!.replace('"agentId":"main",', ''), 'ops', 'm2');
    raw.close();
    await expect(store.runs.get('m1')).rejects.toThrow(/stored run m1 has an invalid action \(wakeMode\)/);
    expect((await store.runs.get('m2'))!.action).toMatchObject({ agentId: 'ops', message: 'message 2' });
    // an invalid action is refused at the insert, as its parse refuses it
    await expect(store.runs.insert({ ...run('bad', 'x', 2000), action: { ...action('x'), wakeMode: 'sometimes' } as unknown as RunRecord['action'] })).rejects.toThrow(/wakeMode/);
  });

  it('stores each run of a series as its own action: one alike but for a field, a nested or an undefined one, is not taken for the one before', async () => {
    const at = file();
    const store = openSqliteStore(at);
    stores.push(store);
    const variants: Record<string, unknown>[] = [
      action('one'),
      action('two'),
      { ...action('three'), source: { mappingId: 'alerts', path: 'other' } },
      { ...action('four'), source: { mappingId: 'alerts', path: 'other' }, deliver: true },
      // an undefined field is stored as none: alike
      { ...action('five'), source: { mappingId: 'alerts', path: 'other' }, deliver: true, to: undefined },
      // one field more, one field fewer
      { ...action('six'), source: { mappingId: 'alerts', path: 'other' }, deliver: true, to: '+15550100' },
      { ...action('seven'), source: { mappingId: 'alerts', path: 'other' } , deliver: true },
      { ...action('eight'), source: { mappingId: 'alerts', path: 'other', extra: 1 } },
      action('nine'),
      // alike but for the fields a preset's runs differ in (checked once per shape): each keeps its own
      { ...action('ten'), name: 'GitHub acme/app#10', sessionKey: 'hook:github:acme/app:issue:10' },
      { ...action('eleven'), name: 'GitHub acme/app#11', sessionKey: 'hook:github:acme/app:issue:11' },
      { ...action('twelve'), name: 'GitHub acme/app#12' },
      { ...action('thirteen'), name: 'GitHub acme/app#13', sessionKey: 'hook:github:acme/app:issue:13' },
      // the same per-run fields as the one before (its action taken as is), then one of them changed, then the other
      { ...action('fourteen'), name: 'GitHub acme/app#13', sessionKey: 'hook:github:acme/app:issue:13' },
      { ...action('fifteen'), name: 'GitHub acme/app#13', sessionKey: 'hook:github:acme/app:issue:15' },
      { ...action('sixteen'), name: 'GitHub acme/app#16', sessionKey: 'hook:github:acme/app:issue:15' },
      // named as the shape's blanked field is
      { ...action('seventeen'), name: '', sessionKey: 'hook:github:acme/app:issue:15' },
      { ...action('eighteen'), name: '', sessionKey: 'hook:github:acme/app:issue:15' },
    ];
    for (const [i, a] of variants.entries()) await store.runs.insert({ ...run(`s${i}`, a.message as string, 3000 + i), action: a as unknown as RunRecord['action'] });
    const raw = new Database(at, { readonly: true });
    const texts = raw.prepare("SELECT action FROM runs WHERE id LIKE 's%' ORDER BY created_at").pluck().all() as string[];
    raw.close();
    // each as a parse of its own stores it
    expect(texts.map((t) => JSON.parse(t))).toEqual(
      variants.map((a) => {
        const { message: _m, ...kept } = JSON.parse(JSON.stringify(a)) as Record<string, unknown>;
        return { ...kept, source: { mappingId: 'alerts', path: (a.source as { path: string }).path } };
      }),
    );
    for (const [i, a] of variants.entries()) {
      const read = (await store.runs.get(`s${i}`))!.action;
      expect(read).toMatchObject({ message: a.message, name: a.name, deliver: a.deliver, source: { path: (a.source as { path: string }).path } });
      expect(read.sessionKey).toBe(a.sessionKey);
    }
    // a per-run field that is no string is refused as the parse refuses it, even after its shape was seen
    await expect(store.runs.insert({ ...run('bad-name', 'x', 4000), action: { ...action('x'), name: 42 } as unknown as RunRecord['action'] })).rejects.toThrow(/name/);
  });
});
