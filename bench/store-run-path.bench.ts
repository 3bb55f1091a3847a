import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { RunRecord } from '../src/store/port.js';
import type { ReceiptRecord } from '../src/store/operator-port.js';
import { uuidV7 } from '../src/time/uuid-v7.js';

/**
 * What the SQLite store costs per agent run, in process, without HTTP: the run's life as
 * `/hooks/agent` with runs executing gives it to the store, `STORE_GROUP` runs per event-loop
 * turn (one group commit): the run's insert and its request's receipt, its claim, then its
 * completion (the turn's two messages, the main session's event) with the claim that follows.
 * Prints the store's CPU per run (this process's, user + system) and, on Linux, the bytes it
 * wrote per run (the WAL's frames and the checkpoints' pages, from /proc/self/io: the same in
 * every round, where the CPU wanders with the machine). `STORE_RUNS` runs (default 20,000),
 * `STORE_ROUNDS` times (default 3), each on a fresh database file.
 */

const RUNS = Number(process.env.STORE_RUNS ?? 20_000);
const GROUP = Number(process.env.STORE_GROUP ?? 32);
const ROUNDS = Number(process.env.STORE_ROUNDS ?? 3);

const action = (message: string) => ({
  kind: 'agent' as const, message, name: 'Hook', agentId: 'main', wakeMode: 'now' as const, deliver: false, channel: 'last',
  allowUnsafeExternalContent: false, source: { mappingId: 'agent', path: 'agent' },
});

const runOf = (id: string, now: number): RunRecord => ({
  id, status: 'queued', agentId: 'main', name: 'Hook', sessionKey: `hook:${uuidV7()}`, message: `message ${id}`, action: action(`message ${id}`),
  reply: null, error: null, createdAt: now, startedAt: null, finishedAt: null,
});

const receiptOf = (runId: string, now: number): ReceiptRecord => ({
  id: uuidV7(), requestId: uuidV7(), receivedAt: now, method: 'POST', path: 'agent', mappingId: 'agent', status: 202, outcome: 'agent',
  errorCode: null, runId, eventId: null, idempotencyKey: null, authMethod: 'bearer', signature: null, clientAddress: '127.0.0.1', bodyBytes: 80,
  latencyMs: 1.5, replayOf: null, retainedUntil: null,
});

/** the bytes this process has written (write calls' bytes, /proc/self/io's wchar), or NaN off Linux */
const bytesWritten = () => (process.platform === 'linux' ? Number(/^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]) : NaN);

async function round(file: string): Promise<{ ms: number; bytes: number }> {
  const store = openSqliteStore(file);
  const lease = () => ({ owner: 'bench', now: Date.now(), until: Date.now() + 60_000 });
  const wroteBefore = bytesWritten();
  const started = process.cpuUsage();
  for (let done = 0; done < RUNS; done += GROUP) {
    const now = Date.now();
    const runs = Array.from({ length: GROUP }, () => runOf(uuidV7(), now));
    await Promise.all(runs.flatMap((run) => [store.runs.insert(run), store.receipts.record(receiptOf(run.id, now))]));
    const claimed = await store.runs.claim(lease(), GROUP);
    await Promise.all(
      claimed.map((run) =>
        store.runs.completeAndClaimNext(run.id, {
          status: 'succeeded', reply: 'ok', at: Date.now(),
          transcript: [
            { role: 'user', content: run.message, createdAt: now, runId: run.id },
            { role: 'assistant', content: 'ok', createdAt: Date.now(), runId: run.id },
          ],
          summary: { session: 'main', text: `Hook: ok ${run.id}`, maxPending: 20 },
        }, lease()),
      ),
    );
  }
  const used = process.cpuUsage(started);
  // before the close, whose checkpoint empties the WAL (a cost of shutting down, not of the runs)
  const bytes = (bytesWritten() - wroteBefore) / RUNS;
  await store.close();
  return { ms: (used.user + used.system) / 1000 / RUNS, bytes };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-store-run-path-'));
try {
  const rounds: { ms: number; bytes: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(path.join(dir, `store-${i}.db`)));
  const perRun = rounds.map((r) => r.ms);
  console.log(`store CPU per run (${RUNS} runs, ${GROUP} per group, load average ${os.loadavg()[0]!.toFixed(1)}): ${perRun.map((ms) => `${(ms * 1000).toFixed(1)} µs`).join(', ')}; least ${(Math.min(...perRun) * 1000).toFixed(1)} µs`);
  console.log(`bytes written per run (WAL frames and checkpoints): ${rounds.map((r) => r.bytes.toFixed(0)).join(', ')}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
