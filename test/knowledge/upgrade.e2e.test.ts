import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { KnowledgeIndex } from '../../src/knowledge/knowledge-index.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { migrations as postgresMigrations } from '../../src/store/postgres/migrations.js';
import { createPool } from '../../src/store/postgres/pg-pool.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { migrations as sqliteMigrations } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/port.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
import { eventually, tempDir } from '../helpers/start-herald.js';
import { testApp } from '../http/app-fixture.js';

// a knowledge base as the version before this one stored it: chunks without their index form
const CHUNKS = ['Dogs need a walk twice a day.', '退款通常在五个工作日内完成。'];

async function expectUpgraded(index: KnowledgeIndex) {
  // nothing is found before the chunks are indexed again
  expect(await index.upgrade()).toBe(2);
  expect(await index.upgrade()).toBe(0);
  expect((await index.search('main', 'walking dogs'))[0]).toMatchObject({ filename: 'old.txt', content: CHUNKS[0] });
  expect((await index.search('main', '退款需要多长时间？'))[0]).toMatchObject({ filename: 'old.txt', content: CHUNKS[1] });
  // and the document is still managed as before
  const [doc] = await index.list('main');
  expect(await index.delete(doc!.id)).toBe(true);
  expect(await index.search('main', 'walking dogs')).toEqual([]);
}

// chunks as the version before the index form changed indexed them: Korean words whole, with their
// particles (so 비밀번호 did not find 비밀번호는), a code only in parts (so ERR5003 found nothing)
const INDEXED = [
  { content: '비밀번호는 60일마다 변경합니다.', terms: '비밀번호는 60일마다 변경합니다' },
  { content: 'ERR-5003: an upstream service is unavailable.', terms: 'err 5003 an upstream servic is unavail' },
];

async function expectIndexedAgain(store: Store) {
  const index = new KnowledgeIndex(store.knowledge);
  // a stop between batches leaves the rest for the next start
  expect(await index.upgrade(() => true)).toBe(0);
  expect(await index.upgrade()).toBe(2);
  expect(await index.upgrade()).toBe(0);
  expect((await index.search('main', '비밀번호 변경 주기'))[0]).toMatchObject({ filename: 'indexed.txt', content: INDEXED[0]!.content });
  expect((await index.search('main', 'ERR5003'))[0]).toMatchObject({ filename: 'indexed.txt', content: INDEXED[1]!.content });
  // the older form's terms are gone from the index: each chunk's row was replaced, not added to
  expect(await store.knowledge.search('main', ['비밀번호는', '60일마다'], 4)).toMatchObject({ frequencies: [0, 0], candidates: [] });
}

describe('knowledge bases of the previous version', () => {
  it('SQLite: the chunks are indexed again at start, and the old FTS5 table is dropped', async () => {
    const file = path.join(tempDir(), 'herald.db');
    const db = openDatabase(file, sqliteMigrations.filter((m) => m.version < 13));
    const table = `knowledge_fts_${Buffer.from('main').toString('hex')}`;
    db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(content, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2')`);
    db.prepare("INSERT INTO knowledge_documents VALUES ('doc_old', 'main', 'old.txt', 1, 'text/plain', 'abc', 'ready', 2, NULL, 1)").run();
    CHUNKS.forEach((content, seq) => {
      const { lastInsertRowid } = db.prepare('INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content) VALUES (?, ?, ?, ?, ?)').run(`chunk_${seq}`, 'doc_old', 'main', seq, content);
      db.prepare(`INSERT INTO ${table} (rowid, content) VALUES (?, ?)`).run(lastInsertRowid, content);
    });
    db.close();
    const store = openSqliteStore(file);
    await expectUpgraded(new KnowledgeIndex(store.knowledge));
    await store.close();
    const tables = new Database(file).prepare("SELECT name FROM sqlite_master WHERE name LIKE 'knowledge_fts_%'").all();
    expect(tables).toEqual([]);
  });

  it('SQLite: chunks indexed under the previous index form are indexed again at start', async () => {
    const store = openSqliteStore(previousIndexForm(path.join(tempDir(), 'herald.db')));
    await expectIndexedAgain(store);
    await store.close();
  });

  it('the gateway serves at once and indexes them again in the background, logged once', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'data'));
    previousIndexForm(path.join(dir, 'data', 'herald.db'));
    const app = await testApp({ storage: { sqlite: './data/herald.db' } }, { dir });
    expect((await app.request('/healthz')).status).toBe(200);
    await eventually(async () => app.logs.some((l) => l.msg === 'knowledge: chunks indexed again for this version' && l.chunks === 2));
    expect(await app.gateway.store.knowledge.unindexed(10)).toEqual([]);
  });
});

/** a SQLite file as the version before the index form changed left it, at `file` */
function previousIndexForm(file: string): string {
  const db = openDatabase(file, sqliteMigrations.filter((m) => m.version < 25));
  const table = `knowledge_terms_${Buffer.from('main').toString('hex')}`;
  db.exec(`CREATE VIRTUAL TABLE ${table} USING fts5(terms, content = '', contentless_delete = 1, tokenize = 'ascii')`);
  db.prepare("INSERT INTO knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at) VALUES ('doc_old', 'main', 'indexed.txt', 1, 'text/plain', 'abc', 'ready', 2, NULL, 1)").run();
  INDEXED.forEach(({ content, terms }, seq) => {
    const { lastInsertRowid } = db.prepare('INSERT INTO knowledge_chunks (id, document_id, agent_id, seq, content, terms) VALUES (?, ?, ?, ?, ?, ?)').run(`chunk_${seq}`, 'doc_old', 'main', seq, content, terms);
    db.prepare(`INSERT INTO ${table} (rowid, terms) VALUES (?, ?)`).run(lastInsertRowid, terms);
  });
  db.close();
  return file;
}

describe('knowledge bases of the previous version on PostgreSQL', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });

  it('PostgreSQL: the chunks are indexed again at start', async () => {
    await requirePostgres();
    const schema = uniqueSchema('herald_upgrade');
    schemas.push(schema);
    const pool = createPool({ url: PG_URL, schema });
    await migrate(pool, schema, postgresMigrations.filter((m) => m.version < 6));
    await pool.end();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`INSERT INTO ${schema}.knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at)
                        VALUES ('doc_old', 'main', 'old.txt', 1, 'text/plain', 'abc', 'ready', 2, NULL, 1)`);
    for (const [seq, content] of CHUNKS.entries()) {
      await client.query(`INSERT INTO ${schema}.knowledge_chunks (id, document_id, agent_id, seq, content) VALUES ($1, 'doc_old', 'main', $2, $3)`, [`chunk_${seq}`, seq, content]);
    }
    await client.end();
    const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
    await expectUpgraded(new KnowledgeIndex(store.knowledge));
    await store.close();
  });

  it('PostgreSQL: chunks indexed under the previous index form are indexed again at start', async () => {
    await requirePostgres();
    const schema = uniqueSchema('herald_upgrade');
    schemas.push(schema);
    const pool = createPool({ url: PG_URL, schema });
    await migrate(pool, schema, postgresMigrations.filter((m) => m.version < 17));
    await pool.end();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`INSERT INTO ${schema}.knowledge_documents (id, agent_id, filename, bytes, mime_type, sha256, status, chunk_count, metadata, created_at)
                        VALUES ('doc_old', 'main', 'indexed.txt', 1, 'text/plain', 'abc', 'ready', 2, NULL, 1)`);
    for (const [seq, { content, terms }] of INDEXED.entries()) {
      await client.query(`INSERT INTO ${schema}.knowledge_chunks (id, document_id, agent_id, seq, content, terms) VALUES ($1, 'doc_old', 'main', $2, $3, $4)`, [`chunk_${seq}`, seq, content, terms]);
    }
    await client.end();
    const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 2 });
    await expectIndexedAgain(store);
    await store.close();
  });
});
