import { openSqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { queuedRun } from '../run-record.js';

/**
 * Run as a process by counts-after-kill.test.ts: writes runs and events through the SQLite store
 * without end, through every move the counts follow (insert, claim, release, cancel, completion,
 * events enqueued past their cap, claimed, given back, done), and says `wrote <n>` after each round,
 * until it is killed.
 */
const store = openSqliteStore(process.argv[2]!);
// ids of this process's own: the file holds the runs of the writers killed before it
const run = (id: string) => `${process.pid}-${id}`;
const lease = () => ({ owner: 'writer', now: Date.now(), until: Date.now() + 60_000 });
const summary = (text: string) => ({ session: 'main', text, maxPending: 3 });
for (let round = 0; ; round++) {
  const writes: Promise<unknown>[] = [];
  // a session's runs behind one another (waiting), and runs of their own sessions
  for (let i = 0; i < 8; i++) writes.push(store.runs.insert({ ...queuedRun(run(`r${round}-${i}`), Date.now()), sessionKey: `hook:s${i % 3}` }));
  writes.push(store.runs.insert(queuedRun(run(`fresh${round}`), Date.now()), lease()));
  writes.push(store.events.enqueue('main', `wake ${round}`, 3));
  await Promise.all(writes);
  const [first, second, ...rest] = await store.runs.claim(lease(), 6, 2);
  if (first) await store.runs.release([first.id], 'writer');
  if (second) await store.runs.cancel(run(`r${round}-7`), Date.now());
  await Promise.all(
    [...rest, ...(second ? [second] : [])].map((claimed, i) =>
      i % 2
        ? store.runs.complete(claimed.id, { status: 'failed', error: 'no', at: Date.now(), transcript: [], summary: summary(`failed ${claimed.id}`) })
        : store.runs.completeAndClaimNext(claimed.id, {
            status: 'succeeded', reply: 'ok', at: Date.now(), summary: summary(`done ${claimed.id}`),
            transcript: [{ role: 'assistant', content: 'ok', createdAt: Date.now(), runId: claimed.id }],
          }, lease(), 1),
    ),
  );
  const events = await store.events.claimPending('main', lease(), 20);
  const [back, ...done] = events;
  if (back) await store.events.release([back.id], 'writer');
  await store.events.complete(done.map((e) => e.id));
  process.stdout.write(`wrote ${round}\n`);
}
