import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RunRecord, RunsRepo } from '../src/store/port.js';
import type { ReceiptRecord, ReceiptsRepo } from '../src/store/contracts/operator-port.js';
import { uuidV7 } from '../src/time/uuid-v7.js';
import { formatTable } from './table.js';

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
 */

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.STORE_RUNS ?? 20_000);
const GROUP = Number(process.env.STORE_GROUP ?? 32);
const ROUNDS = Number(process.env.STORE_ROUNDS ?? 3);

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
  id, status: 'queued', agentId: 'main', name: 'Hook', sessionKey: `hook:${uuidV7()}`, message: `message ${id}`, action: action(`message ${id}`),
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
    const { openSqliteStore } = (await import(pathToFileURL(path.join(root, 'src/store/sqlite/sqlite-store.ts')).href)) as { openSqliteStore(file: string): Store };
    stores.push(openSqliteStore(path.join(dir, `store-${r}-${i}.db`)));
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
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
