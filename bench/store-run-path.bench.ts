import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { RunRecord, RunsRepo } from '../src/store/port.js';
import type { ReceiptRecord, ReceiptsRepo } from '../src/store/contracts/operator-port.js';
import { uuidV7 } from '../src/time/uuid-v7.js';
import { formatTable } from './table.js';
import { walPages } from './wal-pages.js';

/**
 * What the SQLite store costs per agent run, in process, without HTTP: the run's life as
 * `/hooks/agent` with runs executing gives it to the store, `STORE_GROUP` runs per event-loop
 * turn (one group commit): the run's insert and its request's receipt, its claim, then its
 * completion (the turn's two messages, the main session's event) with the claim that follows.
 * Prints the store's CPU per run (this process's, user + system) and, on Linux, the bytes it
 * wrote per run (the WAL's frames and the checkpoints' pages, from /proc/self/io: the same in
 * every round, where the CPU wanders with the machine). `STORE_RUNS` runs (default 20,000),
 * `STORE_ROUNDS` times (default 3), each on a fresh database file.
 *
 * `BENCH_HERALD_ROOT=<checkout>[,<checkout>]` (default this one) measures each checkout's store
 * in the same round, group by group in turn (the order flipped every group), each on its own
 * file: a machine whose speed wanders by a quarter from one second to the next (a shared VM)
 * weighs on both alike, so a difference of a few per cent shows where rounds run one after the
 * other cannot resolve it.
 *
 *   BENCH_HERALD_ROOT=/path/to/before,/path/to/after node --import tsx bench/store-run-path.bench.ts
 *
 * `STORE_PAGES=<groups>` (default 0: none) then counts, for each checkout, the pages that many
 * groups' commits write, by B-tree (bench/wal-pages.ts), on a fresh file past its first 60 groups:
 * a run's bytes are its commits' pages, and the table says which tables and indexes they are.
 * Keep it under 1,000 pages (some 12 groups), the WAL's checkpoint.
 */

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.STORE_RUNS ?? 20_000);
const GROUP = Number(process.env.STORE_GROUP ?? 32);
const ROUNDS = Number(process.env.STORE_ROUNDS ?? 3);
const PAGE_GROUPS = Number(process.env.STORE_PAGES ?? 0);

/** what the bench asks of a checkout's store (an older checkout's port may differ elsewhere) */
interface Store {
  runs: Pick<RunsRepo, 'insert' | 'claim' | 'completeAndClaimNext'>;
  receipts: Pick<ReceiptsRepo, 'record'>;
  close(): Promise<void>;
}

const action = (message: string) => ({
  kind: 'agent' as const, message, name: 'Hook', agentId: 'main', wakeMode: 'now' as const, deliver: false, channel: 'last',
  allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' },
});

const runOf = (id: string, now: number): RunRecord => ({
  id, status: 'queued', agentId: 'main', name: 'Hook', sessionKey: `hook:${id}`, message: `message ${id}`, action: action(`message ${id}`),
  reply: null, error: null, createdAt: now, startedAt: null, finishedAt: null,
});

// ids made at the records' times, as herald makes them (run-queue.ts, receipt-recorder.ts)
const receiptOf = (runId: string, now: number): ReceiptRecord => ({
  id: uuidV7(now), requestId: uuidV7(), receivedAt: now, method: 'POST', path: 'agent', mappingId: 'agent', status: 202, outcome: 'agent',
  errorCode: null, runId, eventId: null, idempotencyKey: null, authMethod: 'bearer', signature: null, clientAddress: '127.0.0.1', bodyBytes: 80,
  latencyMs: 1.5, replayOf: null, retainedUntil: null,
});

/** the bytes this process has written (write calls' bytes, /proc/self/io's wchar), or NaN off Linux */
const bytesWritten = () => (process.platform === 'linux' ? Number(/^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]) : NaN);

const lease = () => ({ owner: 'bench', now: Date.now(), until: Date.now() + 60_000 });

/** `root` checkout's SQLite store on `file` */
async function openStoreOf(root: string, file: string): Promise<Store> {
  const { openSqliteStore } = (await import(pathToFileURL(path.join(root, 'src/store/sqlite/sqlite-store.ts')).href)) as { openSqliteStore(file: string): Store };
  return openSqliteStore(file);
}

/** one group commit's runs through their life, as the run queue gives them to the store */
async function group(store: Store): Promise<void> {
  const now = Date.now();
  const runs = Array.from({ length: GROUP }, () => runOf(uuidV7(now), now));
  await Promise.all(runs.flatMap((run) => [store.runs.insert(run), store.receipts.record(receiptOf(run.id, now))]));
  const claimed = await store.runs.claim(lease(), GROUP);
  await Promise.all(
    claimed.map((run) =>
      store.runs.completeAndClaimNext(run.id, {
        // its session made for it: the transcript opens it (an earlier checkout's store ignores the hint)
        status: 'succeeded', reply: 'ok', at: Date.now(), sessionKey: run.sessionKey, opensSession: true,
        transcript: [
          { role: 'user', content: run.message, createdAt: now, runId: run.id },
          { role: 'assistant', content: 'ok', createdAt: Date.now(), runId: run.id },
        ],
        summary: { session: 'main', text: `Hook: ok ${run.id}`, maxPending: 20 },
      }, lease()),
    ),
  );
}

/** a round: each checkout's store on a fresh file, their groups in turn; CPU (ms) and bytes written per run, by checkout */
async function round(roots: string[], dir: string, r: number): Promise<{ ms: number; bytes: number }[]> {
  const stores: Store[] = [];
  for (const [i, root] of roots.entries()) {
    stores.push(await openStoreOf(root, path.join(dir, `store-${r}-${i}.db`)));
  }
  const cpu = roots.map(() => 0);
  const bytes = roots.map(() => 0);
  for (let done = 0, g = 0; done < RUNS; done += GROUP, g++) {
    for (let k = 0; k < stores.length; k++) {
      const i = g % 2 ? stores.length - 1 - k : k;
      const wroteBefore = bytesWritten();
      const started = process.cpuUsage();
      await group(stores[i]!);
      const used = process.cpuUsage(started);
      cpu[i] = cpu[i]! + used.user + used.system;
      bytes[i] = bytes[i]! + bytesWritten() - wroteBefore;
    }
  }
  // after the measurement: the close's checkpoint empties the WAL (a cost of shutting down, not of the runs)
  for (const store of stores) await store.close();
  return roots.map((_, i) => ({ ms: cpu[i]! / 1000 / RUNS, bytes: bytes[i]! / RUNS }));
}

/** the pages a checkout's commits wrote per run: by B-tree, all of them, and their bytes in the WAL */
interface Census {
  perRun: Map<string, number>;
  pages: number;
  bytes: number;
}

/** PAGE_GROUPS groups' pages for `root`'s store, on a fresh file past its first 60 groups */
async function census(root: string, dir: string): Promise<Census> {
  const file = path.join(dir, `census-${path.basename(root)}.db`);
  const store = await openStoreOf(root, file);
  for (let g = 0; g < 60; g++) await group(store);
  const reader = new Database(file);
  reader.pragma('wal_checkpoint(TRUNCATE)');
  for (let g = 0; g < PAGE_GROUPS; g++) await group(store);
  const { frames, bytes, byTree } = walPages(file, reader);
  reader.close();
  await store.close();
  const runs = PAGE_GROUPS * GROUP;
  return { perRun: new Map(byTree.map(([name, n]) => [name, n / runs])), pages: frames / runs, bytes: bytes / runs };
}

const roots = (process.env.BENCH_HERALD_ROOT || HERE).split(',').map((root) => path.resolve(root.trim()));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-store-run-path-'));
try {
  console.log(`SQLite store per run: ${RUNS} runs, ${GROUP} per group, ${ROUNDS} rounds${roots.length > 1 ? ', the checkouts group by group in turn' : ''} (load average ${os.loadavg()[0]!.toFixed(1)})`);
  const rows: string[][] = [];
  const perRun = roots.map((): number[] => []);
  for (let r = 0; r < ROUNDS; r++) {
    const measured = await round(roots, dir, r);
    measured.forEach((m, i) => {
      perRun[i]!.push(m.ms);
      rows.push([path.basename(roots[i]!), String(r + 1), (m.ms * 1000).toFixed(1), m.bytes.toFixed(0)]);
    });
  }
  console.log(formatTable(['checkout', 'round', 'store CPU µs/run', 'bytes written/run'], rows));
  for (const [i, root] of roots.entries()) {
    const runs = perRun[i]!;
    console.log(`${path.basename(root)}: mean ${((runs.reduce((a, b) => a + b, 0) / runs.length) * 1000).toFixed(1)} µs, least ${(Math.min(...runs) * 1000).toFixed(1)} µs of store CPU per run`);
  }
  if (PAGE_GROUPS > 0) {
    const counted: Census[] = [];
    for (const root of roots) counted.push(await census(root, dir));
    const trees = [...new Set(counted.flatMap((c) => [...c.perRun.keys()]))].sort((a, b) => (counted[0]!.perRun.get(b) ?? 0) - (counted[0]!.perRun.get(a) ?? 0));
    console.log(`\npages written per run by B-tree, ${PAGE_GROUPS} groups of ${GROUP} (pages of 4 KiB plus a 24-byte header)`);
    console.log(
      formatTable(['B-tree', ...roots.map((root) => path.basename(root))], [
        ...trees.map((tree) => [tree, ...counted.map((c) => (c.perRun.get(tree) ?? 0).toFixed(3))]),
        ['all', ...counted.map((c) => c.pages.toFixed(3))],
        ['bytes', ...counted.map((c) => c.bytes.toFixed(0))],
      ]),
    );
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
