import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { PgBackendCpu } from './pg-backend-cpu.js';
import { formatTable } from './table.js';

/**
 * What the PostgreSQL store costs per agent run, in process and without HTTP, as
 * bench/store-run-path.bench.ts measures SQLite's: `STORE_GROUP` runs inserted together, claimed,
 * then completed (the turn's two messages, the main session's event) with the claim after each.
 * Per run: the wall time, this process's CPU, its backends' CPU (bench/pg-backend-cpu.ts) and the
 * WAL written (`pg_current_wal_insert_lsn` before and after), which depends on the rows and index
 * entries written, not on how busy the machine is. `BENCH_HERALD_ROOT=<checkout>[,<checkout>]`
 * (default this one) alternates checkouts, `STORE_ROUNDS` times (default 3), each on a fresh schema.
 *
 *   BENCH_HERALD_ROOT=/path/to/before,/path/to/after node --import tsx bench/store-run-path-pg.bench.ts
 */

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = Number(process.env.STORE_RUNS ?? 6000);
const GROUP = Number(process.env.STORE_GROUP ?? 32);
const ROUNDS = Number(process.env.STORE_ROUNDS ?? 3);

interface Store {
  runs: {
    insert(run: unknown): Promise<void>;
    claim(lease: Lease, limit: number): Promise<{ id: string }[]>;
    completeAndClaimNext(id: string, completion: unknown, lease: Lease): Promise<unknown>;
  };
  close(): Promise<void>;
}
type Lease = { owner: string; now: number; until: number };

interface Measured {
  wallUs: number;
  clientUs: number;
  backendUs: number;
  walBytes: number;
}

const action = { kind: 'agent', message: 'm', name: 'Hook', agentId: 'main', wakeMode: 'now', deliver: false, channel: 'last', allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' } };
const lease = (): Lease => ({ owner: 'bench', now: Date.now(), until: Date.now() + 60_000 });

async function round(root: string, schema: string, admin: pg.Pool, backends: PgBackendCpu): Promise<Measured> {
  const { openPostgresStore } = (await import(pathToFileURL(path.join(root, 'src/store/postgres/postgres-store.ts')).href)) as {
    openPostgresStore(options: { url: string; schema: string }): Promise<Store>;
  };
  const store = await openPostgresStore({ url: PG_URL, schema });
  try {
    // the store's backends by their application name (src/store/postgres/pg-pool.ts), opened by a first claim
    const names = [`herald:${schema}`];
    await store.runs.claim(lease(), 1);
    const walBefore = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0]!.lsn;
    const cpuBefore = await backends.snapshot(names);
    const client = process.cpuUsage();
    const started = performance.now();
    for (let done = 0; done < RUNS; done += GROUP) {
      const now = Date.now();
      const runs = Array.from({ length: GROUP }, () => ({
        id: crypto.randomUUID(), status: 'queued', agentId: 'main', name: 'Hook', sessionKey: `hook:${crypto.randomUUID()}`, message: 'm', action,
        reply: null, error: null, createdAt: now, startedAt: null, finishedAt: null,
      }));
      await Promise.all(runs.map((run) => store.runs.insert(run)));
      const claimed = await store.runs.claim(lease(), GROUP);
      await Promise.all(
        claimed.map((run) =>
          store.runs.completeAndClaimNext(run.id, {
            status: 'succeeded', reply: 'ok', at: Date.now(),
            transcript: [{ role: 'user', content: 'm', createdAt: now, runId: run.id }, { role: 'assistant', content: 'ok', createdAt: Date.now(), runId: run.id }],
            summary: { session: 'main', text: `Hook: ok ${run.id}`, maxPending: 20 },
          }, lease()),
        ),
      );
    }
    const wallUs = ((performance.now() - started) * 1000) / RUNS;
    const used = process.cpuUsage(client);
    const backendMs = await backends.since(cpuBefore, names);
    const walAfter = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0]!.lsn;
    const wal = Number((await admin.query<{ d: string }>('SELECT pg_wal_lsn_diff($1, $2) AS d', [walAfter, walBefore])).rows[0]!.d);
    return { wallUs, clientUs: (used.user + used.system) / RUNS, backendUs: (backendMs * 1000) / RUNS, walBytes: wal / RUNS };
  } finally {
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

export async function run(): Promise<void> {
  const roots = (process.env.BENCH_HERALD_ROOT || HERE).split(',').map((root) => path.resolve(root.trim()));
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  const backends = await PgBackendCpu.connect(PG_URL);
  const rows: string[][] = [];
  try {
    console.log(`PostgreSQL store per run: ${RUNS} runs, ${GROUP} per group, ${ROUNDS} rounds alternated (load average ${os.loadavg()[0]!.toFixed(1)})`);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, root] of roots.entries()) {
        const m = await round(root, `store_run_path_${process.pid}_${r}_${i}`, admin, backends);
        rows.push([path.basename(root), String(r + 1), m.wallUs.toFixed(0), m.clientUs.toFixed(0), m.backendUs.toFixed(0), m.walBytes.toFixed(0)]);
        console.log(`  ${path.basename(root)} round ${r + 1}: backend ${m.backendUs.toFixed(0)} µs/run, WAL ${m.walBytes.toFixed(0)} B/run`);
      }
    }
    console.log(formatTable(['checkout', 'round', 'wall µs/run', 'client CPU µs/run', 'backend CPU µs/run', 'WAL B/run'], rows));
  } finally {
    await backends.close();
    await admin.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
