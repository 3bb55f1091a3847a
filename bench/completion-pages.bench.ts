/**
 * What a chat completion writes to disk, page by page: the store's writes of one completion (its
 * two messages with their session summary, and its usage row, in one group commit as the turn
 * makes them) committed one completion at a time, as sequential completions are, and the WAL's
 * frames read back and named by the B-tree each page belongs to (bench/wal-pages.ts).
 * `node --import tsx bench/completion-pages.bench.ts` (`COMMITS`, default 80: the WAL must not
 * reach its checkpoint at 1,000 frames; `CONTINUED=1`: every completion continues one conversation;
 * `HERALD_ROOT=<checkout>` measures another checkout's store; `CPU_COMMITS=4000` then times that
 * many more, one at a time, and prints the process's CPU per completion).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { walPages } from './wal-pages.js';

const ROOT = process.env.HERALD_ROOT ? path.resolve(process.env.HERALD_ROOT) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { openSqliteStore } = (await import(pathToFileURL(path.join(ROOT, 'src/store/sqlite/sqlite-store.ts')).href)) as typeof import('../src/store/sqlite/sqlite-store.js');
const Database = (await import('better-sqlite3')).default;

const COMMITS = Number(process.env.COMMITS ?? 80);
const continued = process.env.CONTINUED === '1';
const CPU_COMMITS = Number(process.env.CPU_COMMITS ?? 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pages-'));
const file = path.join(dir, 'herald.db');
const store = openSqliteStore(file);

/** one completion's writes, asked in one tick as the agent turn asks them */
async function completion(i: number): Promise<void> {
  const key = continued ? 'chat:conv_000000000000000000000001' : `chat:conv_${(1e12 + i).toString(16).padStart(24, '0')}`;
  const now = Date.now();
  const meta = { agentId: 'agent', owner: 'key:bench' };
  const messages = store.sessions.appendMany(
    key,
    [
      { role: 'user', content: 'How are you today?', createdAt: now, meta },
      { role: 'assistant', content: 'fine, thanks', createdAt: now, meta },
    ],
    !continued || i === 0,
  );
  const usage = store.usage.record([{ at: now, source: 'chat', model: 'up/bench', keyName: 'bench', agentId: 'agent', promptTokens: 10, completionTokens: 3, totalTokens: 13, estimated: false, cost: 0 }]);
  await Promise.all([messages, usage]);
}

try {
  // the tables past their first pages, then the WAL emptied
  for (let i = 0; i < 300; i++) await completion(i);
  const reader = new Database(file);
  reader.pragma('wal_checkpoint(TRUNCATE)');
  for (let i = 300; i < 300 + COMMITS; i++) await completion(i);
  const { frames, bytes, pageSize, byTree } = walPages(file, reader);
  reader.close();
  console.log(
    `${continued ? 'one conversation continued' : 'a new conversation each'}: ${COMMITS} completions, ${frames} WAL frames, ` +
      `${(frames / COMMITS).toFixed(2)} pages and ${Math.round(bytes / COMMITS)} bytes per completion (pages of ${pageSize} bytes)`,
  );
  for (const [name, n] of byTree) console.log(`  ${(n / COMMITS).toFixed(2).padStart(5)}  ${name}`);
  if (CPU_COMMITS > 0) {
    // the same writes, timed: this process's CPU (user + system) per completion, its WAL checkpoints included
    const from = 300 + COMMITS;
    const cpu = process.cpuUsage();
    for (let i = from; i < from + CPU_COMMITS; i++) await completion(i);
    const spent = process.cpuUsage(cpu);
    console.log(`the store's CPU per completion, ${CPU_COMMITS} more one at a time: ${((spent.user + spent.system) / 1000 / CPU_COMMITS).toFixed(3)} ms (load average ${os.loadavg()[0]?.toFixed(1)})`);
  }
} finally {
  store.close?.();
  fs.rmSync(dir, { recursive: true, force: true });
}
