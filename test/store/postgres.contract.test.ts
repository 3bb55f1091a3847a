import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { migrate } from '../../src/store/postgres/migrate.js';
import { migrations } from '../../src/store/postgres/migrations.js';
import { createPool } from '../../src/store/postgres/pg-pool.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from '../helpers/postgres.js';
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

// the port contract on the PostgreSQL adapter: each store a fresh schema of the test database
// (dropped after the run); a shared store is a second pool on the same schema, as a second
// replica would open it. No PostgreSQL: every test here fails, saying so.
const schemaOf = new WeakMap<Store, string>();
const schemas = new Set<string>();
const opened: Store[] = [];

beforeAll(requirePostgres);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
// a schema per case: dropping them all takes a while on a busy disk (each drop syncs its files)
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
}, 120_000);

const open: OpenStore = async (shareWith) => {
  const schema = shareWith ? schemaOf.get(shareWith)! : uniqueSchema('herald_contract');
  schemas.add(schema);
  const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 4 });
  schemaOf.set(store, schema);
  opened.push(store);
  return store;
};

async function previousVersion(): Promise<PreviousVersionDatabase> {
  const schema = uniqueSchema('herald_contract');
  schemas.add(schema);
  const latest = Math.max(...migrations.map((m) => m.version));
  const pool = createPool({ url: PG_URL, schema });
  await migrate(pool, schema, migrations.filter((m) => m.version < latest));
  await pool.end();
  return {
    async insertRun(run) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(
        `INSERT INTO ${schema}.runs (id, status, agent_id, name, session_key, message, action, deliver, reply, created_at, finished_at)
         VALUES ($1, $2, 'main', 'Hook', $3, $4, $5::jsonb, $6, $7, $8, $9)`,
        [run.id, run.status, run.sessionKey, run.message, JSON.stringify(run.action), run.action.deliver !== false, run.reply, run.createdAt, run.finishedAt],
      );
      await client.end();
    },
    async insertMessage(sessionKey, m) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`INSERT INTO ${schema}.session_messages (session_key, role, content, run_id, meta, created_at) VALUES ($1, 'user', 'm', $2, $3::jsonb, $4)`, [
        sessionKey, m.runId, m.meta ? JSON.stringify(m.meta) : null, m.createdAt,
      ]);
      await client.end();
    },
    async insertUsage(u) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(
        `INSERT INTO ${schema}.usage (at, source, model, key_name, agent_id, prompt_tokens, completion_tokens, total_tokens, estimated, cost, calls)
         VALUES ($1, 'chat', 'up/m', $2, $3, 0, 0, $4, false, $5, $6)`,
        [u.at, u.keyName, u.agentId, u.totalTokens, u.cost, u.calls],
      );
      await client.end();
    },
    async migrate() {
      const store = await openPostgresStore({ url: PG_URL, schema, poolSize: 4 });
      opened.push(store);
      return store;
    },
  };
}

const raced: RacedEvents = async (store, session, texts) => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(
    `INSERT INTO ${schemaOf.get(store)!}.events (session, text, status, created_at) SELECT $1, t, 'pending', $3 FROM unnest($2::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n`,
    [session, texts, Date.now()],
  );
  await client.end();
};

describe('the store port contract on PostgreSQL', () => {
  eventsCases(open, raced);
  runsCases(open);
  tracesCases(open);
  receiptsCases(open);
  toolCallsCases(open);
  servingCases(open, { alone: false });
admissionCases(open);
  deliveriesCases(open);
  idempotencyCases(open);
  stateCases(open);
  knowledgeCases(open);
  apiKeysCases(open);
  questionsCases(open);
  filesCases(open);
  usageCases(open, previousVersion);
alertsCases(open);
schedulesCases(open);
  probeCases(open);
  migrationsCases(open, previousVersion);
  sessionSummariesCases(open, previousVersion);
  leaseCases(async () => {
    const a = await open();
    return [a, await open(a)] as const;
  }, { signalsCrossProcesses: true });
});
