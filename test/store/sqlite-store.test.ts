import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { agentAction, queuedRun } from './run-record.js';
import type { EventQuery, RunRecord } from '../../src/store/port.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { SUMMARY_ID } from '../../src/store/sqlite/sessions-repo.js';
import { tempDir } from '../helpers/start-herald.js';
import { indexTextOf } from '../../src/knowledge/text-terms.js';
import { uuidV7 } from '../../src/time/uuid-v7.js';

const indexed = (texts: string[]) => texts.map((content) => ({ content, terms: indexTextOf(content) }));

const file = () => path.join(tempDir(), 'nested', 'herald.db');


// what only the SQLite adapter does; the port's behaviour is in sqlite.contract.test.ts
describe('sqlite store', () => {
  const newDoc = (sha256: string) => ({ agentId: 'a', filename: 'big.txt', bytes: 1, mimeType: 'text/plain', sha256, metadata: null });

  it('writes a large document in batches: the event loop turns between them, and the document shows once whole', async () => {
    const store = openSqliteStore(file());
    const chunks = Array.from({ length: 1_200 }, (_, i) => `Chunk ${i} about invoices${i === 1_199 ? ' and zebras' : ''}.`);
    let turnsDuringAdd = 0;
    let adding = true;
    const tick = () => {
      if (!adding) return;
      turnsDuringAdd++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const added = store.knowledge.add(newDoc('big'), indexed(chunks));
    // while chunks are being written the document is not visible yet
    expect(await store.knowledge.list('a')).toEqual([]);
    const { document } = await added;
    adding = false;
    expect(turnsDuringAdd).toBeGreaterThan(1);
    expect(document.chunkCount).toBe(1_200);
    expect((await store.knowledge.search('a', ['zebra'], 5)).candidates.map((h) => h.content)).toEqual(['Chunk 1199 about invoices and zebras.']);
    await store.close();
  });

  it('removes a document whose chunks were still being written when the process stopped, at the start of the one serving next, not when another opens the file', async () => {
    const db = file();
    const first = openSqliteStore(db);
    expect(await first.serveAlone()).toBe(true);
    await first.knowledge.add(newDoc('whole'), indexed(['A finished document.']));
    first.db.prepare("INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at) VALUES ('doc_cut', 'a', 'cut.txt', 1, 'text/plain', 'cut', 'indexing', 2, NULL, 0)").run();
    // a CLI command opening the file while it is served: the document may be one being written
    const command = openSqliteStore(db);
    expect(await command.serveAlone()).toBe(false);
    await command.close();
    expect(first.db.prepare("SELECT COUNT(*) AS n FROM knowledge_documents WHERE id = 'doc_cut'").get()).toEqual({ n: 1 });
    await first.close();
    const second = openSqliteStore(db);
    expect(await second.serveAlone()).toBe(true);
    expect(await second.knowledge.removeUnfinished()).toBe(1);
    expect((await second.knowledge.list('a')).map((d) => d.filename)).toEqual(['big.txt']);
    expect(second.db.prepare("SELECT COUNT(*) AS n FROM knowledge_documents WHERE id = 'doc_cut'").get()).toEqual({ n: 0 });
    await second.close();
  });

  it('takes no half-written document no add of this process writes as a match: the same content is stored whole, no one waits', async () => {
    const db = file();
    const first = openSqliteStore(db);
    await first.close();
    const store = openSqliteStore(db);
    // left by a process that died after the start's clean-up ran (another handle on the file)
    store.db.prepare("INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at) VALUES ('doc_cut', 'a', 'cut.txt', 1, 'text/plain', 'same', 'indexing', 0, NULL, 0)").run();
    const { document, created } = await store.knowledge.add(newDoc('same'), indexed(['One.', 'Two.']));
    expect(created).toBe(true);
    expect(document).toMatchObject({ filename: 'big.txt', chunkCount: 2 });
    expect(store.db.prepare("SELECT id, status FROM knowledge_documents WHERE sha256 = 'same'").all()).toEqual([{ id: document.id, status: 'ready' }]);
    await store.close();
  });

  it('keeps the document this process is still writing through one handle when another removes what a stopped process left', async () => {
    const db = file();
    const store = openSqliteStore(db);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let taken = false;
    async function* batches() {
      yield indexed(['One.']);
      taken = true;
      await held;
      yield indexed(['Two.']);
    }
    const adding = store.knowledge.add(newDoc('held'), batches());
    while (!taken) await new Promise((resolve) => setImmediate(resolve));
    const second = openSqliteStore(db);
    expect(await second.knowledge.removeUnfinished()).toBe(0);
    release();
    expect((await adding).document.chunkCount).toBe(2);
    expect((await second.knowledge.list('a')).map((d) => d.chunkCount)).toEqual([2]);
    await second.close();
    await store.close();
  });

  it('creates its folder, uses WAL and records the schema version', async () => {
    const store = openSqliteStore(file());
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(1);
    await store.close();
  });

  it('leaves no temp database open after migrating a new file, and keeps a 4 MiB page cache', async () => {
    // an open temp database takes part in every transaction (src/store/sqlite/open-database.ts)
    const store = openSqliteStore(file());
    const databases = () => (store.db.pragma('database_list') as { name: string }[]).map((d) => d.name);
    expect(databases()).toEqual(['main']);
    expect(store.db.pragma('temp_store', { simple: true })).toBe(2);
    expect(store.db.pragma('cache_size', { simple: true })).toBe(-4000);
    // a group commit's transaction does not open it again
    await store.runs.insert(queuedRun('r1'));
    await store.events.enqueue('main', 'news', 10);
    expect(databases()).toEqual(['main']);
    await store.close();
  });

  it('refuses, naming storage.sqlite, a file it cannot open or one a newer herald migrated', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'a-folder.db'));
    expect(() => openSqliteStore(path.join(dir, 'a-folder.db'))).toThrow(ConfigError);
    expect(() => openSqliteStore(path.join(dir, 'a-folder.db'))).toThrow(/^storage\.sqlite: cannot open /);
    fs.writeFileSync(path.join(dir, 'text.db'), 'not a database, just text that is long enough to have a header');
    expect(() => openSqliteStore(path.join(dir, 'text.db'))).toThrow(/^storage\.sqlite: cannot open /);

    const db = path.join(dir, 'newer.db');
    const store = openSqliteStore(db);
    const known = store.db.pragma('user_version', { simple: true }) as number;
    await store.runs.insert(queuedRun('kept', 1));
    store.db.pragma(`user_version = ${known + 1}`);
    await store.close();
    expect(() => openSqliteStore(db)).toThrow(new RegExp(`storage\\.sqlite: .*schema version ${known + 1}, newer than this herald knows \\(${known}\\)`));
    // refused before touching anything: the data is still there for the newer herald
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(db);
    expect(raw.prepare('SELECT id FROM runs').all()).toEqual([{ id: 'kept' }]);
    raw.close();
  });

  it("keeps a session's summary with one upsert per turn written, no trigger per message", async () => {
    const store = openSqliteStore(file());
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'session_messages'").all()).toEqual([]);
    const changes = () => (store.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    for (const at of [1, 10]) {
      const before = changes();
      await store.sessions.appendMany('chat:a', [
        { role: 'user', content: 'hi', createdAt: at },
        { role: 'assistant', content: 'yo', createdAt: at + 1 },
      ]);
      // two messages and one summary (inserted, then updated)
      expect(changes() - before).toBe(3);
    }
    expect(store.db.prepare("SELECT messages, first_at, last_at FROM session_summaries WHERE key = 'chat:a'").get()).toEqual({ messages: 4, first_at: 1, last_at: 11 });
    await store.close();
  });

  it('migrates session_messages off AUTOINCREMENT (no sqlite_sequence write per turn), ids and order kept', async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 31));
    const insert = before.prepare("INSERT INTO session_messages (session_key, role, content, created_at) VALUES (?, 'user', ?, ?)");
    for (const [key, content, at] of [['chat:a', 'one', 1], ['chat:b', 'two', 2], ['chat:a', 'three', 3]] as const) insert.run(key, content, at);
    before.close();
    const store = openSqliteStore(db);
    expect((store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'session_messages'").get() as { sql: string }).sql).not.toMatch(/AUTOINCREMENT/);
    expect(store.db.prepare("SELECT name FROM sqlite_sequence WHERE name = 'session_messages'").all()).toEqual([]);
    expect(store.db.prepare('SELECT id, session_key, content FROM session_messages ORDER BY id').all()).toEqual([
      { id: 1, session_key: 'chat:a', content: 'one' },
      { id: 2, session_key: 'chat:b', content: 'two' },
      { id: 3, session_key: 'chat:a', content: 'three' },
    ]);
    // a new message takes the next id of its session (migration 51): a session reads its messages in order
    await store.sessions.append('chat:a', { role: 'assistant', content: 'four', createdAt: 4 });
    expect(store.db.prepare("SELECT id FROM session_messages WHERE content = 'four'").get()).toEqual({ id: 4 });
    expect((await store.sessions.messages('chat:a')).map((m) => m.content)).toEqual(['one', 'three', 'four']);
    await store.close();
  });

  it("migrates a completion's tables (51): messages by their session's key, usage ids by their time, the rows and their answers kept", async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 51));
    const message = before.prepare("INSERT INTO session_messages (session_key, role, content, created_at) VALUES (?, 'user', ?, ?)");
    for (const [key, content, at] of [['chat:b', 'one', 1], ['chat:a', 'two', 2], ['chat:b', 'three', 3]] as const) message.run(key, content, at);
    const usage = before.prepare("INSERT INTO usage (at, source, model, key_name, agent_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost) VALUES (?, 'chat', 'up/m', ?, 'agent', 1, 1, ?, 0, 0)");
    // written out of time order, and two in one millisecond
    for (const [at, key, tokens] of [[5_000, 'k', 2], [4_000, 'k', 4], [5_000, 'j', 8], [9_000, 'k', 16]] as const) usage.run(at, key, tokens);
    before.close();
    const store = openSqliteStore(db);
    // and since 53 no index on usage: budgets read their totals (usage_totals); since 54 the summaries' only on session_messages
    expect(store.db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name IN ('session_messages', 'usage') AND type = 'index' ORDER BY name").all()).toEqual([{ name: 'session_summaries_last' }]);
    expect((await store.sessions.messages('chat:b')).map((m) => m.content)).toEqual(['one', 'three']);
    await store.sessions.append('chat:b', { role: 'assistant', content: 'four', createdAt: 4 });
    await store.sessions.append('chat:c', { role: 'user', content: 'new', createdAt: 5 });
    expect((await store.sessions.messages('chat:b')).map((m) => m.content)).toEqual(['one', 'three', 'four']);
    expect((await store.sessions.messages('chat:c')).map((m) => m.content)).toEqual(['new']);
    // ids ascend with time, never below at * 1000
    expect(store.db.prepare('SELECT id, at FROM usage ORDER BY id').all()).toEqual([
      { id: 4_000_000, at: 4_000 },
      { id: 5_000_000, at: 5_000 },
      { id: 5_000_001, at: 5_000 },
      { id: 9_000_000, at: 9_000 },
    ]);
    const byKey = async (since: number, until: number) => (await store.usage.report({ by: 'key', since, until })).map((r) => [r.group, r.totalTokens]);
    expect(await byKey(4_000, 9_000)).toEqual([['j', 8], ['k', 6]]);
    expect(await byKey(5_000, 9_001)).toEqual([['k', 18], ['j', 8]]);
    expect(await store.usage.spent({ keyName: 'k' }, 5_000)).toEqual({ tokens: 18, cost: 0 });
    // a row of an earlier millisecond than the newest (a clock set back) is filed past it, and still reported by its time
    await store.usage.record([{ at: 4_500, source: 'chat', model: 'up/m', keyName: 'k', agentId: 'agent', promptTokens: 1, completionTokens: 31, totalTokens: 32, estimated: false, cost: 0 }]);
    expect(store.db.prepare('SELECT id FROM usage WHERE at = 4500').get()).toEqual({ id: 9_000_001 });
    expect(await byKey(4_000, 5_000)).toEqual([['k', 36]]);
    await store.close();
  });

  it("migrates the summaries into their sessions' ranges (54): one B-tree for a turn's summary and messages, the list and the histories as they were", async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 54));
    before.prepare("INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at) VALUES ('r1', 'queued', 'support', 'n', 'hook:r1', 'm', '{}', 0, 1)").run();
    const message = before.prepare("INSERT INTO session_messages (session_key, id, role, content, created_at) VALUES (?, ?, 'user', ?, ?)");
    message.run('chat:a', 7, 'one', 10);
    message.run('chat:a', 9, 'two', 11);
    before.prepare("INSERT INTO session_summaries (key, agent_id, messages, first_at, last_at) VALUES ('chat:a', 'sales', 2, 10, 11)").run();
    before.close();
    const store = openSqliteStore(db);
    const list = async () => (await store.browse.sessions({ limit: 10, defaultAgentId: 'boss' })).map((s) => [s.key, s.agentId, s.messages, s.firstAt, s.lastAt]);
    expect(await list()).toEqual([['chat:a', 'sales', 2, 10, 11], ['hook:r1', 'support', 0, 1, 1]]);
    // a session listed by its run alone holds no message
    expect(await store.sessions.exists('hook:r1')).toBe(false);
    expect(await store.sessions.messages('hook:r1')).toEqual([]);
    await store.sessions.append('chat:a', { role: 'assistant', content: 'three', createdAt: 20 });
    await store.sessions.appendMany('chat:b', [{ role: 'user', content: 'new', createdAt: 30, meta: { agentId: 'sales' } }], true);
    expect((await store.sessions.messages('chat:a')).map((m) => m.content)).toEqual(['one', 'two', 'three']);
    expect(await list()).toEqual([['chat:b', 'sales', 1, 30, 30], ['chat:a', 'sales', 3, 10, 20], ['hook:r1', 'support', 0, 1, 1]]);
    // a session's summary is the last row of its range: a turn's messages go in beside it
    expect(store.db.prepare("SELECT id, role, messages FROM session_messages WHERE session_key = 'chat:b' ORDER BY id").all()).toEqual([
      { id: 1, role: 'user', messages: null },
      { id: SUMMARY_ID, role: '', messages: 1 },
    ]);
    // a session of ids from before migration 51 (one sequence for all), called fresh: stored after its messages
    await store.sessions.appendMany('chat:a', [{ role: 'user', content: 'four', createdAt: 21 }, { role: 'assistant', content: 'five', createdAt: 22 }], true);
    expect((await store.sessions.messages('chat:a')).map((m) => m.content)).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect((await list())[1]).toEqual(['chat:a', 'sales', 5, 10, 22]);
    await store.sessions.appendMany('chat:b', [{ role: 'assistant', content: 'again', createdAt: 40 }]);
    expect(store.db.prepare("SELECT id, messages FROM session_messages WHERE session_key = 'chat:b' ORDER BY id").all()).toEqual([
      { id: 1, messages: null },
      { id: 2, messages: null },
      { id: SUMMARY_ID, messages: 2 },
    ]);
    await store.close();
  });

  it('migrates the runs and receipts to their lists by primary key (57): the rows whose id is not their time found by their own index, the lists as they were', async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 57));
    const t = 1_700_000_040_000;
    const rows: [string, number][] = [[uuidV7(t), t], ['imported', t + 1], [uuidV7(t + 2), t + 2], [uuidV7(t - 50), t + 3]];
    const run = before.prepare("INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, created_at) VALUES (?, 'succeeded', 'main', 'n', ?, 'm', ?, 0, ?)");
    const receipt = before.prepare("INSERT INTO receipts (id, request_id, received_at, method, path, status, outcome, auth_method, body_bytes, latency_ms) VALUES (?, 'q', ?, 'POST', 'agent', 202, 'agent', 'bearer', 1, 1)");
    for (const [id, at] of rows) {
      run.run(id, `hook:${id}`, JSON.stringify(agentAction('m')), at);
      receipt.run(id, at);
    }
    before.close();
    const store = openSqliteStore(db);
    const newestFirst = [rows[3]![0], rows[2]![0], 'imported', rows[0]![0]];
    expect((await store.browse.runs({ limit: 10 })).map((r) => r.id)).toEqual(newestFirst);
    expect((await store.receipts.list({ limit: 10 })).map((r) => r.id)).toEqual(newestFirst);
    expect((await store.browse.runs({ limit: 10, since: t + 1, until: t + 2 })).map((r) => r.id)).toEqual([rows[2]![0], 'imported']);
    // only the two whose id is not their time's are in the index by time
    expect(store.db.prepare('SELECT id FROM runs WHERE unkeyed_at IS NOT NULL ORDER BY unkeyed_at').all()).toEqual([{ id: 'imported' }, { id: rows[3]![0] }]);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM receipts WHERE unkeyed_at IS NOT NULL').get()).toEqual({ n: 2 });
    await store.close();
  });

  it('migrates the events to their list by primary key (58): an event made before an earlier one found by its own index, the lists as they were', async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 58));
    const event = before.prepare("INSERT INTO events (session, text, status, created_at) VALUES (?, ?, 'handled', ?)");
    // the third was made while the clock was set back, the fifth at the time of the fourth
    for (const [text, at] of [['a', 100], ['b', 200], ['c', 150], ['d', 300], ['e', 300], ['f', 400]] as const) event.run(text === 'c' ? 'other' : 'main', text, at);
    before.close();
    const store = openSqliteStore(db);
    const texts = async (query: Partial<EventQuery>) => (await store.browse.events({ limit: 10, ...query })).map((e) => e.text);
    expect(await texts({})).toEqual(['f', 'e', 'd', 'b', 'c', 'a']);
    expect(await texts({ since: 150, until: 300 })).toEqual(['e', 'd', 'b', 'c']);
    expect(await texts({ since: 301 })).toEqual(['f']);
    expect(await texts({ until: 99 })).toEqual([]);
    // page by page, each page after the last one's (time, id)
    const pages: string[][] = [];
    let after: EventQuery['after'];
    for (;;) {
      const page = await store.browse.events({ limit: 2, ...(after && { after }) });
      if (!page.length) break;
      pages.push(page.map((e) => e.text));
      const last = page.at(-1)!;
      after = { at: last.createdAt, id: String(last.id) };
    }
    expect(pages).toEqual([['f', 'e'], ['d', 'b'], ['c', 'a']]);
    expect(store.db.prepare('SELECT text FROM events WHERE unkeyed_at IS NOT NULL').all()).toEqual([{ text: 'c' }]);
    await store.close();
  });

  it('keys an event by its id while its time is no earlier than the events before it, and lists one made while the clock was set back by its time', async () => {
    const store = openSqliteStore(file());
    const now = Date.now();
    const at = (ms: number) => vi.spyOn(Date, 'now').mockReturnValue(ms);
    at(now);
    await store.events.enqueue('main', 'first', 10);
    at(now + 10);
    await store.events.enqueue('main', 'second', 10);
    // the clock set back by 5 ms
    at(now + 5);
    await store.events.enqueue('main', 'set back', 10);
    at(now + 20);
    await store.events.enqueue('main', 'third', 10);
    vi.restoreAllMocks();
    expect(store.db.prepare('SELECT text FROM events WHERE unkeyed_at IS NOT NULL').all()).toEqual([{ text: 'set back' }]);
    const texts = async (query: Partial<EventQuery>) => (await store.browse.events({ limit: 10, ...query })).map((e) => e.text);
    expect(await texts({})).toEqual(['third', 'second', 'set back', 'first']);
    expect(await texts({ since: now + 1, until: now + 10 })).toEqual(['second', 'set back']);
    expect(await texts({ after: { at: now + 10, id: '2' } })).toEqual(['set back', 'first']);
    // another connection's events (a CLI command) count as this one's: an event made before them is not keyed
    const other = openSqliteStore(store.db.name);
    at(now + 100);
    await other.events.enqueue('cli', 'from the cli', 10);
    at(now + 50);
    await store.events.enqueue('main', 'after the cli, earlier', 10);
    vi.restoreAllMocks();
    await other.close();
    expect(await texts({ limit: 2 })).toEqual(['from the cli', 'after the cli, earlier']);
    expect(store.db.prepare('SELECT text FROM events WHERE unkeyed_at IS NOT NULL ORDER BY id').all()).toEqual([{ text: 'set back' }, { text: 'after the cli, earlier' }]);
    await store.close();
  });

  it("writes a usage row alone for a key and agent no budget asked about, and keeps the days of one asked about in the row's commit", async () => {
    const store = openSqliteStore(file());
    const call = (keyName: string, totalTokens: number) => ({ at: 5_000, source: 'chat' as const, model: 'up/m', keyName, agentId: 'agent', promptTokens: 0, completionTokens: 0, totalTokens, estimated: false, cost: 0 });
    const totals = () => store.db.prepare('SELECT whom, day, tokens FROM usage_totals ORDER BY whom').all();
    await store.usage.record([call('free', 1)]);
    expect(totals()).toEqual([]);
    expect(await store.usage.spent({ keyName: 'capped' }, 0)).toEqual({ tokens: 0, cost: 0 });
    await store.usage.record([call('capped', 2), call('free', 4)]);
    expect(totals()).toEqual([{ whom: 'key:capped', day: 0, tokens: 2 }]);
    await store.close();
  });

  it('remembers who has no budget, and forgets it when another connection asks about them', async () => {
    const db = file();
    const store = openSqliteStore(db);
    const call = (totalTokens: number) => ({ at: 5_000, source: 'chat' as const, model: 'up/m', keyName: 'k', agentId: 'agent', promptTokens: 0, completionTokens: 0, totalTokens, estimated: false, cost: 0 });
    const totals = () => store.db.prepare('SELECT whom, tokens FROM usage_totals ORDER BY whom').all();
    await store.usage.record([call(1)]);
    await store.usage.record([call(2)]);
    expect(totals()).toEqual([]);
    // another process (a CLI command) keeps the key's days from now on
    const other = openSqliteStore(db);
    expect(await other.usage.spent({ keyName: 'k' }, 0)).toEqual({ tokens: 3, cost: 0 });
    await other.close();
    await store.usage.record([call(4)]);
    expect(totals()).toEqual([{ whom: 'key:k', tokens: 7 }]);
    await store.close();
  });

  it('migrates runs to flag the ones followed in their session: each releases the next as it ends, in order', async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 39));
    const insert = before.prepare("INSERT INTO runs (id, status, agent_id, name, session_key, message, action, created_at, finished_at) VALUES (?, ?, 'main', 'Hook', ?, ?, ?, ?, ?)");
    const run = (id: string, status: string, session: string, at: number, finishedAt: number | null = null) =>
      insert.run(id, status, `hook:${session}`, `message ${id}`, JSON.stringify(queuedRun(id).action), at, finishedAt);
    run('done', 'succeeded', 'a', 1, 2);
    run('a1', 'running', 'a', 3);
    run('a2', 'queued', 'a', 4);
    run('a3', 'queued', 'a', 5);
    run('b1', 'queued', 'b', 6);
    before.close();
    const store = openSqliteStore(db);
    const flags = () => Object.fromEntries((store.db.prepare('SELECT id, waiting, followed FROM runs ORDER BY rowid').all() as { id: string; waiting: number; followed: number }[]).map((r) => [r.id, [r.waiting, r.followed]]));
    expect(flags()).toEqual({ done: [0, 0], a1: [0, 1], a2: [1, 1], a3: [1, 0], b1: [0, 0] });
    // a run inserted now flags the newest unfinished one ahead of it
    await store.runs.insert({ ...queuedRun('b2', 7), sessionKey: 'hook:b' });
    expect(flags()).toMatchObject({ b1: [0, 1], b2: [1, 0] });
    const lease = { owner: 'p', now: 8, until: 60_000 };
    const ids = (runs: { id: string }[]) => runs.map((r) => r.id);
    // a1, left running by a stopped process, is taken again; a2, a3 and b2 wait behind their heads
    expect(ids(await store.runs.claim(lease, 10))).toEqual(['a1', 'b1']);
    const end = (id: string) => store.runs.complete(id, { status: 'succeeded', reply: 'ok', at: 9, transcript: [], summary: { session: 'main', text: id, maxPending: 20 } });
    for (const [id, next] of [['a1', 'a2'], ['a2', 'a3'], ['b1', 'b2']] as const) {
      expect(await end(id)).toBe(true);
      expect(ids(await store.runs.claim(lease, 10))).toEqual([next]);
    }
    expect(await end('a3')).toBe(true);
    expect(await store.runs.claim(lease, 10)).toEqual([]);
    await store.close();
  });

  it("keeps each session's oldest unfinished run the only one not waiting, through random inserts, claims, ends and cancels", async () => {
    const store = openSqliteStore(file());
    // a fixed sequence (a linear congruential generator): a failure is the same run after run
    let seed = 35;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const sessions = ['hook:a', 'hook:b', 'hook:c', 'hook:d'];
    const lease = { owner: 'p', now: 1, until: 60_000 };
    const held: RunRecord[] = [];
    const summary = { session: 'main', text: 'done', maxPending: 20 };
    let n = 0;
    for (let step = 0; step < 600; step++) {
      const move = next(10);
      if (move < 4) await store.runs.insert({ ...queuedRun(`r${++n}`, n), sessionKey: sessions[next(sessions.length)]! });
      else if (move < 6) held.push(...(await store.runs.claim(lease, 1 + next(3), next(3))));
      else if (move < 9 && held.length) {
        // the oldest claimed of a session ends first (a run behind its head is refused until then)
        const run = held.splice(next(held.length), 1)[0]!;
        const ended = await store.runs.complete(run.id, { status: next(4) ? 'succeeded' : 'failed', at: n, transcript: [], sessionKey: run.sessionKey, summary });
        if (!ended) held.push(run);
      } else {
        const count = (store.db.prepare("SELECT COUNT(*) AS n FROM runs WHERE status = 'queued'").get() as { n: number }).n;
        const queued = store.db.prepare("SELECT id FROM runs WHERE status = 'queued' ORDER BY rowid LIMIT 1 OFFSET ?").get(next(count + 1)) as { id: string } | undefined;
        if (queued) await store.runs.cancel(queued.id, n);
      }
      const unfinished = store.db.prepare("SELECT session_key, waiting FROM runs WHERE finished_at IS NULL ORDER BY session_key, rowid").all() as { session_key: string; waiting: number }[];
      unfinished.forEach((run, i) => expect(run.waiting, `step ${step}`).toBe(i === 0 || unfinished[i - 1]!.session_key !== run.session_key ? 0 : 1));
    }
    expect(n).toBeGreaterThan(150);
    await store.close();
  });

  it('migrates events off AUTOINCREMENT: ids, columns, indexes and the delete count kept, new ids past them', async () => {
    const db = file();
    const before = openDatabase(db, migrations.filter((m) => m.version < 32));
    before.prepare("INSERT INTO events (session, text, status, created_at, lease_owner, lease_until, untrusted) VALUES ('main', 'a', 'done', 1, NULL, NULL, 0), ('main', 'b', 'processing', 2, 'w', 9, 1)").run();
    before.close();
    const store = openSqliteStore(db);
    const objects = store.db.prepare("SELECT type, name FROM sqlite_master WHERE tbl_name = 'events' ORDER BY name").all();
    expect(objects).toEqual([
      { type: 'table', name: 'events' },
      { type: 'trigger', name: 'events_counted_delete' },
      { type: 'index', name: 'events_created_unkeyed' },
      { type: 'index', name: 'events_session_created' },
      { type: 'index', name: 'events_session_pending' },
      { type: 'index', name: 'events_session_processing' },
    ]);
    expect(store.db.prepare("SELECT name FROM sqlite_sequence WHERE name = 'events'").all()).toEqual([]);
    expect(store.db.prepare('SELECT id, text, status, lease_owner, lease_until, untrusted FROM events ORDER BY id').all()).toEqual([
      { id: 1, text: 'a', status: 'done', lease_owner: null, lease_until: null, untrusted: 0 },
      { id: 2, text: 'b', status: 'processing', lease_owner: 'w', lease_until: 9, untrusted: 1 },
    ]);
    expect((await store.events.enqueue('main', 'c', 20))?.id).toBe(3);
    expect(await store.probe.counts()).toMatchObject({ eventsPending: 1 });
    store.db.prepare('DELETE FROM events WHERE id = 3').run();
    expect(await store.probe.counts()).toMatchObject({ eventsPending: 0 });
    await store.close();
  });
});
