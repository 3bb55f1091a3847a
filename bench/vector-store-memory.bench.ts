/**
 * The memory a herald process takes for vector store files (issue 71, item 1): one API key makes
 * 30 stores at once over one 8 MiB text file; then the process is killed (SIGKILL) with files in
 * progress and started again on the same database. Prints the peak resident memory of each phase
 * above the process's memory before it, beside what one store over the file (one parse) takes.
 * Standalone: `node --import tsx bench/vector-store-memory.bench.ts`; HERALD_ROOT=<checkout> runs
 * another checkout's herald (e.g. main, for the figures before). Figures are printed, never asserted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startChildServer, type ChildServer } from './child-server.js';
import { residentBytes, trackPeakMemory } from './process-stats.js';
import { writeBenchConfig } from './bench-herald-config.js';

const API_KEY = 'sk-bench-0123456789abcdef';
const MiB = 2 ** 20;
const auth = { authorization: `Bearer ${API_KEY}` };

/** ~`bytes` of prose-like text */
function document(bytes: number): Buffer {
  let seed = 11;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const words = Array.from({ length: 5000 }, () => Array.from({ length: 3 + Math.floor(rand() * 7) }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(rand() * 26)]).join(''));
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const sentence = `${Array.from({ length: 8 + Math.floor(rand() * 12) }, () => words[Math.floor(words.length * rand() ** 2)]).join(' ')}.${rand() < 0.2 ? '\n\n' : ' '}`;
    parts.push(sentence);
    size += sentence.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

const settle = () => new Promise((r) => setTimeout(r, 2000));

/** the files of the stores `ids`, by status, from one list call */
async function counts(url: string, ids: string[]): Promise<{ completed: number; inProgress: number; failed: number }> {
  const out = { completed: 0, inProgress: 0, failed: 0 };
  const wanted = new Set(ids);
  const page = (await (await fetch(`${url}/v1/vector_stores?limit=100`, { headers: auth })).json()) as { data: { id: string; file_counts: { completed: number; in_progress: number; failed: number } }[] };
  for (const store of page.data) {
    if (!wanted.has(store.id)) continue;
    out.completed += store.file_counts.completed;
    out.inProgress += store.file_counts.in_progress;
    out.failed += store.file_counts.failed;
  }
  return out;
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('timed out');
}

export interface VectorStoreMemoryResult {
  fileMiB: number;
  oneParseMiB: number;
  thirtyStoresMiB: number;
  refused: number;
  killedInProgress: number;
  restartPeakMiB: number;
  restartBaseMiB: number;
  /** a fresh process, listening, before any file */
  idleMiB: number;
}

export async function run(options: { root?: string; fileBytes?: number; stores?: number } = {}): Promise<VectorStoreMemoryResult> {
  const root = options.root ?? process.env.HERALD_ROOT ?? process.cwd();
  const fileBytes = options.fileBytes ?? 8 * MiB;
  const stores = options.stores ?? 30;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-vs-'));
  const configFile = writeBenchConfig(dir, API_KEY, { rateLimit: { requestsPerMinute: 1_000_000 } });
  const start = () => startChildServer({ name: 'herald', args: ['bin/herald.mjs', 'serve', '--config', configFile], cwd: root, env: { HERALD_LOG_LEVEL: 'warn' }, startTimeoutMs: 120_000 });
  let herald: ChildServer | undefined = await start();
  try {
    await settle();
    const idleMiB = residentBytes(herald.pid) / MiB;
    const form = new FormData();
    form.append('purpose', 'assistants');
    form.append('file', new Blob([document(fileBytes)]), 'handbook.txt');
    const file = (await (await fetch(`${herald.url}/v1/files`, { method: 'POST', headers: auth, body: form })).json()) as { id: string };
    const create = async () => {
      const res = await fetch(`${herald!.url}/v1/vector_stores`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ file_ids: [file.id] }) });
      return res.status === 200 ? ((await res.json()) as { id: string }).id : undefined;
    };

    // one store over the file: one parse
    await settle();
    let base = residentBytes(herald.pid);
    let peak = trackPeakMemory(herald.pid, 20);
    const one = (await create())!;
    await until(async () => (await counts(herald!.url, [one])).completed === 1, 600_000);
    const oneParseMiB = (peak.stop() - base) / MiB;

    // thirty at once, with the same key; measured while the first three are read
    await settle();
    base = residentBytes(herald.pid);
    peak = trackPeakMemory(herald.pid, 20);
    const made = await Promise.all(Array.from({ length: stores }, create));
    const ids = made.filter((id): id is string => id !== undefined);
    await until(async () => (await counts(herald!.url, ids)).completed >= 3, 900_000);
    const thirtyStoresMiB = (peak.stop() - base) / MiB;
    const killedInProgress = (await counts(herald.url, ids)).inProgress;

    // a kill -9 with files in progress, then a start on the same database, until three more are read
    process.kill(herald.pid, 'SIGKILL');
    await herald.stop(0).catch(() => undefined);
    herald = await start();
    const startedPeak = trackPeakMemory(herald.pid, 20);
    const restartBase = residentBytes(herald.pid);
    const before = (await counts(herald.url, ids)).completed;
    await until(async () => (await counts(herald!.url, ids)).completed >= before + 3, 900_000);
    const restartPeakMiB = startedPeak.stop() / MiB;
    return { fileMiB: fileBytes / MiB, oneParseMiB, thirtyStoresMiB, refused: stores - ids.length, killedInProgress, restartPeakMiB, restartBaseMiB: restartBase / MiB, idleMiB };
  } finally {
    await herald?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function print(r: VectorStoreMemoryResult): void {
  const f = (n: number) => n.toFixed(0);
  console.log(`vector store memory: one ${f(r.fileMiB)} MiB text file; a fresh herald holds ${f(r.idleMiB)} MiB resident`);
  console.log(`  one store over it (one parse): peak +${f(r.oneParseMiB)} MiB`);
  console.log(`  30 stores at once by one key: peak +${f(r.thirtyStoresMiB)} MiB while the first 3 were read (${r.refused} refused)`);
  console.log(`  after a kill -9 with ${r.killedInProgress} files in progress: the next start peaked at ${f(r.restartPeakMiB)} MiB resident (${f(r.restartBaseMiB)} MiB when it listened) while 3 more were read`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  run().then(
    (result) => {
      print(result);
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
