import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open-database.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/start-herald.js';
import { admissionCases } from './admission.case.js';
import { alertsCases } from './alerts.case.js';
import { apiKeysCases } from './api-keys.case.js';
import { questionsCases } from './questions.case.js';
import { filesCases } from './files.case.js';
import { usageCases } from './usage.case.js';
import { deliveriesCases } from './deliveries.case.js';
import { eventsCases, type RacedEvents } from './events.case.js';
import { idempotencyCases } from './idempotency.case.js';
import { knowledgeCases } from './knowledge.case.js';
import { leaseCases } from './leases.case.js';
import { migrationsCases, type PreviousVersionDatabase } from './migrations.case.js';
import type { OpenStore } from './open-store-under-test.js';
import { probeCases } from './probe.case.js';
import { runsCases } from './runs.case.js';
import { tracesCases } from './traces.case.js';
import { receiptsCases } from './receipts.case.js';
import { servingCases } from './serving.case.js';
import { sessionSummariesCases } from './session-summaries.case.js';
import { stateCases } from './state.case.js';
import { toolCallsCases } from './tool-calls.case.js';
import { schedulesCases } from './schedules.case.js';

// the port contract on the SQLite adapter: each store a file of its own; a shared store is a
// second connection on the same file, as a second herald process would open it
const files = new WeakMap<Store, string>();
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const open: OpenStore = async (shareWith) => {
  const file = shareWith ? files.get(shareWith)! : path.join(tempDir(), 'herald.db');
  const store = openSqliteStore(file);
  files.set(store, file);
  opened.push(store);
  return store;
};

/**
 * By default the schema before the operator tables (version 10): runs.deliver is a column already (9),
 * and the upgrade covered is every migration since, runs.model (11) included. `before`: another version.
 */
async function previousVersion(before = 10): Promise<PreviousVersionDatabase> {
  const file = path.join(tempDir(), 'herald.db');
  openDatabase(file, migrations.filter((m) => m.version < before)).close();
  return {
    async insertRun(run) {
      const db = new Database(file);
      db.prepare(
        // the previous version (9) already kept `deliver` as a column
        `INSERT INTO runs (id, status, agent_id, name, session_key, message, action, deliver, reply, error, created_at, started_at, finished_at)
         VALUES (?, ?, 'main', 'Hook', ?, ?, ?, ?, ?, NULL, ?, NULL, ?)`,
      ).run(run.id, run.status, run.sessionKey, run.message, JSON.stringify(run.action), run.action.deliver === false ? 0 : 1, run.reply, run.createdAt, run.finishedAt);
      db.close();
    },
    async insertMessage(sessionKey, m) {
      const db = new Database(file);
      db.prepare(`INSERT INTO session_messages (session_key, role, content, run_id, meta, created_at) VALUES (?, 'user', 'm', ?, ?, ?)`).run(
        sessionKey, m.runId, m.meta ? JSON.stringify(m.meta) : null, m.createdAt,
      );
      db.close();
    },
    async insertUsage(u) {
      const db = new Database(file);
      db.prepare(
        `INSERT INTO usage (id, at, source, model, key_name, agent_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
         VALUES ((SELECT MAX(? * 1000, COALESCE(MAX(id), 0) + 1) FROM usage), ?, 'chat', 'up/m', ?, ?, 0, 0, ?, 0, ?, ?)`,
      ).run(u.at, u.at, u.keyName, u.agentId, u.totalTokens, u.cost, u.calls);
      db.close();
    },
    async migrate() {
      const store = openSqliteStore(file);
      opened.push(store);
      return store;
    },
  };
}

const raced: RacedEvents = async (store, session, texts) => {
  const db = new Database(files.get(store)!);
  const insert = db.prepare("INSERT INTO events (session, text, status, created_at) VALUES (?, ?, 'pending', ?)");
  for (const text of texts) insert.run(session, text, Date.now());
  db.close();
};

eventsCases(open, raced);
runsCases(open);
tracesCases(open);
receiptsCases(open);
toolCallsCases(open);
servingCases(open, { alone: true });
admissionCases(open);
deliveriesCases(open);
idempotencyCases(open);
stateCases(open);
knowledgeCases(open);
apiKeysCases(open);
questionsCases(open);
filesCases(open);
usageCases(open, () => previousVersion(53));
alertsCases(open);
schedulesCases(open);
probeCases(open);
migrationsCases(open, previousVersion);
// the version before 17: its summaries kept by the row trigger
sessionSummariesCases(open, () => previousVersion(17));
describe('leases and claims between two handles on one file', () => {
  leaseCases(async () => {
    const a = await open();
    return [a, await open(a)] as const;
  }, { signalsCrossProcesses: false });
});
