import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinMappings } from '../../../src/mappings/loading/builtin-mappings.js';
import { BUILTIN_MAPPING_IDS } from '../../../src/store/queries/indexed-conditions.js';
import { ListFilter, sqliteDialect } from '../../../src/store/queries/list-filter.js';
import type { EventQuery, ReceiptQuery, RunQuery } from '../../../src/store/port.js';
import { sessionFilter, sessionsSql } from '../../../src/store/queries/browse-filters.js';
import { eventsPageSql, RUNS_PER_MINUTE, runsPageSql } from '../../../src/store/sqlite/browse-repo.js';
import { AWAITING_DELIVERY } from '../../../src/store/sqlite/deliveries-repo.js';
import { CLAIM_LAPSED, CLAIM_PENDING, PENDING_COUNT } from '../../../src/store/sqlite/events-repo.js';
import { NEWEST_EVENT, PENDING_EVENT_IDS } from '../../../src/store/sqlite/queue-memory.js';
import { openDatabase, type SqliteDatabase } from '../../../src/store/sqlite/open-database.js';
import { IN_PROGRESS_KEYS } from '../../../src/store/sqlite/idempotency-repo.js';
import { CLEAR_RETAINED, OLD_KEYED_RECEIPTS, OLD_UNKEYED_RECEIPTS, RECEIPTS_PER_MINUTE, receiptsPageSql } from '../../../src/store/sqlite/receipts-repo.js';
import { REQUEUE_RUNNING } from '../../../src/store/sqlite/runs-repo.js';
import { SUMMARY_ID } from '../../../src/store/sqlite/sessions-repo.js';

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

  it('clears what the receipts retaining a payload no longer retain from those receipts only, not by scanning every receipt', () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    expect(plan(CLEAR_RETAINED, 0)[0]).toBe('SEARCH receipts USING INDEX receipts_retained (retained_until>?)');
  });

  it('recovers the idempotency keys left in progress from those keys only, not by scanning every key kept', () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    expect(plan(IN_PROGRESS_KEYS)).toEqual(['SCAN idempotency_keys USING INDEX idempotency_keys_in_progress']);
  });

  it('takes back the runs left running from the unfinished ones only, not by scanning every run', () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    // the runs waiting behind none from runs_ready, the others (a run inserted claimed behind another) from runs_session_unfinished
    const steps = plan(REQUEUE_RUNNING);
    expect(steps).toContain('SEARCH runs USING INDEX runs_ready (waiting=?)');
    expect(steps).toContain('SCAN runs USING INDEX runs_session_unfinished');
    expect(steps.filter((s) => /^(SCAN|SEARCH) runs\b/.test(s) && !s.includes('USING INDEX') && !s.includes('PRIMARY KEY'))).toEqual([]);
  });
});

describe("SQLite query plans of a session's messages", () => {
  it('reads a history and the next id from the range of its key, with no index beside the table but the summaries\' and no sort', () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    const history = plan(`SELECT role, content, run_id, meta, created_at FROM session_messages WHERE session_key = ? AND id < ${SUMMARY_ID} ORDER BY id DESC LIMIT 20`, 's');
    expect(history).toEqual(['SEARCH session_messages USING PRIMARY KEY (session_key=? AND id<?)']);
    expect(plan('SELECT id FROM session_messages WHERE session_key = ? ORDER BY id DESC LIMIT 2', 's')).toEqual(['SEARCH session_messages USING PRIMARY KEY (session_key=?)']);
    // the sessions list's, over the summaries only: a message writes no index entry
    const indexes = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'session_messages'").all() as { name: string; sql: string }[];
    expect(indexes.map((i) => i.name)).toEqual(['session_summaries_last']);
    expect(indexes[0]!.sql).toMatch(new RegExp(`WHERE id = ${SUMMARY_ID}$`));
  });

  it('lists the sessions newest first from the summaries\' index, filtered or not, with no sort', () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    for (const query of [{}, { agentId: 'sales' }, { prefix: 'chat:' }, { until: 5 }]) {
      const f = new ListFilter(sqliteDialect, 'last_at', 'key');
      const fallback = f.bind('main');
      const steps = plan(sessionsSql(sessionFilter(f, { limit: 50, defaultAgentId: 'main', ...query }), fallback, 50), f.named);
      expect(steps).toHaveLength(1);
      expect(steps[0]).toMatch(/^(SCAN|SEARCH) session_messages USING INDEX session_summaries_last/);
    }
  });
});

describe('SQLite query plans of usage', () => {
  it("reads the report's time range from the table's ids and a budget's days from its key's or agent's totals", () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    const report = plan('SELECT key_name AS grp, SUM(calls) FROM usage WHERE id >= ? * 1000 AND id < ? AND at >= ? AND at < ? GROUP BY grp', 0, 1, 0, 1);
    expect(report[0]).toBe('SEARCH usage USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
    expect(plan('SELECT SUM(tokens) FROM usage_totals WHERE whom = ? AND day >= ?', 'key:k', 0)).toEqual(['SEARCH usage_totals USING PRIMARY KEY (whom=? AND day>?)']);
    // a usage row writes the table and its totals' rows, no index
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'usage' AND sql IS NOT NULL").all();
    expect(indexes).toEqual([]);
  });
});

describe('SQLite programs of the writes every request and run makes', () => {
  it("evaluates the partial indexes' conditions without building a temporary table at each write", () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    // a condition listing more than two values after IN is evaluated through a temporary table
    // built at every execution: on the runs table, every claim and completion paid for one
    const writes = [
      "INSERT INTO runs (id, status, agent_id, name, session_key, message, action, mapping_id, deliver, created_at) VALUES ('a', 'queued', 'main', 'n', 's', 'm', '{}', 'agent', 0, 1)",
      "UPDATE runs SET status = 'running', started_at = 1 WHERE rowid = 1",
      "UPDATE runs SET status = 'succeeded', finished_at = 1 WHERE rowid = 1",
      "INSERT INTO receipts (id, request_id, received_at, method, path, mapping_id, status, outcome, auth_method, body_bytes, latency_ms) VALUES ('a', 'b', 1, 'POST', 'p', 'm', 202, 'o', 'bearer', 1, 1)",
      "INSERT INTO events (session, text, status, created_at) VALUES ('main', 't', 'pending', 1)",
      "UPDATE events SET status = 'dropped' WHERE id = 1",
      "INSERT INTO session_messages (session_key, id, role, content, created_at) VALUES ('s', 1, 'user', 'c', 1)",
    ];
    for (const sql of writes) {
      const program = (db.prepare(`EXPLAIN ${sql}`).all() as { opcode: string }[]).map((op) => op.opcode);
      expect(program, sql).not.toContain('OpenEphemeral');
    }
  });
});

describe('SQLite query plans of the operator lists filtered by status, mapping and run', () => {
  const open = () => (db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db')));
  // a list by time as on a store holding rows not keyed by their time in its range: the two merged
  const runsPlan = (query: RunQuery, unkeyedInRange = () => true) => {
    const { sql, named } = runsPageSql(query, unkeyedInRange);
    return plan(sql, named);
  };
  const receiptsPlan = (query: ReceiptQuery, unkeyedInRange = () => true) => {
    const { sql, named } = receiptsPageSql(query, Date.now(), unkeyedInRange);
    return plan(sql, named);
  };
  /** a list by time: the rows keyed by their time walked down the primary key, the others down their index by time, each a page at most */
  const byTime = (steps: string[], table: string, unkeyedIndex: string) => {
    expect(steps).toContain(`SCAN ${table} USING INDEX sqlite_autoindex_${table}_1`);
    expect(steps.some((s) => new RegExp(`^(SCAN|SEARCH) ${table} USING INDEX ${unkeyedIndex}\\b`).test(s))).toBe(true);
  };

  it('reads the failed, timed out and cancelled runs from runs_status, the succeeded ones (most runs) newest first by time', () => {
    open();
    for (const status of ['failed', 'timed_out', 'cancelled'] as const) {
      const steps = runsPlan({ status, limit: 50 });
      expect(steps[0]).toMatch(/^SEARCH runs USING INDEX runs_status \(status=\?\)/);
      expect(steps.some((s) => s.includes('TEMP B-TREE'))).toBe(false);
    }
    byTime(runsPlan({ status: 'succeeded', limit: 50 }), 'runs', 'runs_created_unkeyed');
    // a run that succeeds writes no entry
    const index = db!.prepare("SELECT sql FROM sqlite_schema WHERE name = 'runs_status'").get() as { sql: string };
    expect(index.sql).toContain("WHERE status <> 'queued' AND status <> 'running' AND status <> 'succeeded'");
  });

  it('reads the queued or running runs from the unfinished ones only (runs_status holds none of them)', () => {
    open();
    for (const status of ['queued', 'running'] as const) {
      // the unfinished runs the session indexes hold, and the made-up sessions' first runs from runs_ready
      const steps = runsPlan({ status, limit: 50 });
      expect(steps).toContain('SCAN runs USING INDEX runs_session_unfinished');
      expect(steps).toContain('SEARCH runs USING INDEX runs_ready (waiting=?)');
      // with a session, only that session's unfinished runs, and its first run by its id where its key is made of it
      const ofSession = runsPlan({ status, sessionKey: 'hook:x', limit: 50 });
      expect(ofSession.some((s) => /^SEARCH runs USING INDEX runs_session_unfinished \(session_key=\?\)/.test(s))).toBe(true);
      expect(ofSession).toContain('SEARCH runs USING INDEX sqlite_autoindex_runs_1 (id=?)');
      expect(runsPlan({ status, sessionKey: 'main', limit: 50 })[0]).toMatch(/^SEARCH runs USING INDEX runs_session_unfinished \(session_key=\?\)/);
    }
  });

  it("reads a session's runs from runs_session, newest first, and a made-up session's first run by its id", () => {
    open();
    expect(runsPlan({ sessionKey: 'main', limit: 50 })).toEqual(['SEARCH runs USING INDEX runs_session (session_key=?)']);
    const steps = runsPlan({ sessionKey: 'hook:x', limit: 50 });
    expect(steps).toContain('SEARCH runs USING INDEX runs_session (session_key=?)');
    expect(steps).toContain('SEARCH runs USING INDEX sqlite_autoindex_runs_1 (id=?)');
  });

  it('reads the runs of a mapping from runs_mapping, newest first, without sorting; those of a built-in endpoint by time', () => {
    open();
    const steps = runsPlan({ mappingId: 'github', limit: 50 });
    expect(steps[0]).toMatch(/^SEARCH runs USING INDEX runs_mapping \(mapping_id=\?\)/);
    expect(steps.some((s) => s.includes('TEMP B-TREE'))).toBe(false);
    byTime(runsPlan({ mappingId: 'agent', limit: 50 }), 'runs', 'runs_created_unkeyed');
    // /hooks/wake makes no runs: its id stays in the index, which costs it nothing, and a list of it reads the index
    expect(runsPlan({ mappingId: 'wake', limit: 50 })[0]).toMatch(/^SEARCH runs USING INDEX runs_mapping \(mapping_id=\?\)/);
  });

  it("reads the events by time from the primary key, and those made while the clock was set back from events_created_unkeyed; a session's from events_session_created", () => {
    open();
    const eventsPlan = (query: EventQuery, unkeyedInRange = () => true) => {
      const { sql, named } = eventsPageSql(query, unkeyedInRange, (ms) => ms);
      return plan(sql, named);
    };
    // no event out of order in the page's range: one walk down the primary key, newest first, unsorted
    expect(eventsPlan({ limit: 50 }, () => false)).toEqual(['SCAN events']);
    expect(eventsPlan({ limit: 50, status: 'pending', after: { at: 5, id: '3' } }, () => false)).toEqual(['SEARCH events USING INTEGER PRIMARY KEY (rowid<?)']);
    const merged = eventsPlan({ limit: 50, since: 5, until: 9 });
    expect(merged).toContain('SEARCH events USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
    expect(merged).toContain('SEARCH events USING INDEX events_created_unkeyed (unkeyed_at>? AND unkeyed_at<?)');
    expect(eventsPlan({ limit: 50, session: 'main' })).toEqual(['SEARCH events USING INDEX events_session_created (session=?)']);
  });

  it('reads the requests of a mapping from receipts_mapping, which holds only the requests a mapping other than a built-in resolved', () => {
    open();
    expect(receiptsPlan({ mappingId: 'github', limit: 50 })[0]).toMatch(/^SEARCH receipts USING INDEX receipts_mapping \(mapping_id=\?\)/);
    for (const mappingId of ['agent', 'wake']) byTime(receiptsPlan({ mappingId, limit: 50 }), 'receipts', 'receipts_received_unkeyed');
    const partial = (name: string) => (db!.prepare("SELECT sql FROM sqlite_schema WHERE name = ?").get(name) as { sql: string }).sql;
    // a direct /hooks/agent or /hooks/wake (the built-in mappings) writes neither index (/hooks/wake makes no runs)
    expect(partial('receipts_mapping')).toContain("WHERE mapping_id NOT IN ('agent', 'wake')");
    expect(partial('runs_mapping')).toContain("WHERE mapping_id NOT IN ('agent')");
    // the ids the indexes leave out are the built-in endpoints' own
    expect(builtinMappings({ config: {} as never, channelNames: [] }).map((m) => m.id).sort()).toEqual([...BUILTIN_MAPPING_IDS].sort());
  });

  it('reads the failed requests from receipts_failed, which holds only them, and a status most requests have newest first by time', () => {
    open();
    for (const query of [{ status: 401 }, { status: 500 }, { result: 'error' as const }]) {
      const steps = receiptsPlan({ ...query, limit: 50 });
      expect(steps[0]).toBe('SCAN receipts USING INDEX receipts_failed');
      expect(steps.some((s) => s.includes('TEMP B-TREE'))).toBe(false);
    }
    for (const query of [{ status: 202 }, { result: 'ok' as const }]) byTime(receiptsPlan({ ...query, limit: 50 }), 'receipts', 'receipts_received_unkeyed');
    const index = db!.prepare("SELECT sql FROM sqlite_schema WHERE name = 'receipts_failed'").get() as { sql: string };
    // an accepted request (200, 202) writes no entry
    expect(index.sql).toContain('WHERE status >= 400');
    expect(db!.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'receipts_status'").get()).toBeUndefined();
  });

  it('reads a page by time in one walk down the primary key, unsorted, when no row of the range is indexed apart', () => {
    open();
    for (const steps of [runsPlan({ limit: 50 }, () => false), runsPlan({ since: 1, until: 2, limit: 50 }, () => false)]) {
      expect(steps[0]).toMatch(/^(SCAN|SEARCH) runs USING INDEX sqlite_autoindex_runs_1/);
      expect(steps.some((s) => s.includes('TEMP B-TREE'))).toBe(false);
    }
    expect(receiptsPlan({ limit: 50 }, () => false)).toEqual(['SCAN receipts USING INDEX sqlite_autoindex_receipts_1']);
  });

  it('counts the runs and requests per minute and prunes the receipts by time from a range of the primary key and the unkeyed index, not the whole table', () => {
    open();
    const since = { from: '00000000-0001', since: 1 };
    for (const [statement, table] of [[RUNS_PER_MINUTE, 'runs'], [RECEIPTS_PER_MINUTE, 'receipts']] as const) {
      const steps = plan(statement, since);
      expect(steps).toContain(`SEARCH ${table} USING INDEX sqlite_autoindex_${table}_1 (id>?)`);
      expect(steps.some((s) => s.startsWith(`SEARCH ${table} USING INDEX ${table === 'runs' ? 'runs_created' : 'receipts_received'}_unkeyed`))).toBe(true);
      expect(steps.some((s) => s.startsWith(`SCAN ${table}`))).toBe(false);
    }
    // (each deleted receipt's retained payload is looked up by its key: the foreign key's cascade)
    expect(plan(OLD_KEYED_RECEIPTS, { beforeId: '00000000-0001', before: 1 })[0]).toBe('SEARCH receipts USING INDEX sqlite_autoindex_receipts_1 (id<?)');
    expect(plan(OLD_UNKEYED_RECEIPTS, { before: 1 })[0]).toMatch(/^SEARCH receipts USING (COVERING )?INDEX receipts_received_unkeyed \(.*unkeyed_at<\?\)/);
  });

  it('finds the requests of a run in receipts_run (which holds only the requests that started one)', () => {
    open();
    expect(receiptsPlan({ runId: 'r1', limit: 50 })[0]).toMatch(/^SEARCH receipts USING INDEX receipts_run \(run_id=\?\)/);
  });
});

describe('SQLite query plans of the main session', () => {
  it("finds a session's newest event, for the duplicate check of each enqueue, at the end of events_session_created", () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    const steps = plan(NEWEST_EVENT, 'main');
    expect(steps).toEqual(['SEARCH events USING INDEX events_session_created (session=?)']);
  });

  it("reads a session's open events from their partial indexes (the queue's statements), not from its whole history", () => {
    db = openDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-plans-')), 'herald.db'));
    expect(plan(PENDING_EVENT_IDS, 'main')).toEqual(['SEARCH events USING COVERING INDEX events_session_pending (session=?)']);
    expect(plan(PENDING_COUNT, 'main')).toEqual(['SEARCH events USING COVERING INDEX events_session_pending (session=?)']);
    expect(plan(CLAIM_PENDING, { session: 'main', owner: 'o', until: 1 })).toEqual(['SEARCH events USING COVERING INDEX events_session_pending (session=?)']);
    expect(plan(CLAIM_LAPSED, { session: 'main', owner: 'o', until: 1, now: 1 })).toEqual(['SEARCH events USING INDEX events_session_processing (session=?)']);
  });
});
