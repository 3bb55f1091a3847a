const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
import { openSqliteStore } from './src/store/sqlite/sqlite-store.js';
import { queuedRun } from './test/store/run-record.js';
const N = Number(process.argv[2] ?? 20000);
for (const one of [false, true]) {
  const file = `/tmp/mb/${one}-${Date.now()}.db`;
  const store = openSqliteStore(file);
  const t0 = cpuNow();
  for (let i = 0; i < N; i++) await store.runs.insert({ ...queuedRun(`r${i}`), sessionKey: one ? 'hook:busy' : `hook:${i}`, action: { ...queuedRun(`r${i}`).action, sessionKey: one ? 'hook:busy' : `hook:${i}` } });
  const t1 = cpuNow();
  let claimMs = 0, completeMs = 0, n = 0;
  for (;;) {
    let a = cpuNow();
    const runs = await store.runs.claim({ owner: 'a', now: Date.now(), until: Date.now() + 60000 }, 4);
    claimMs += cpuNow() - a;
    if (!runs.length) break;
    a = cpuNow();
    await Promise.all(runs.map((r) => store.runs.complete(r.id, { status: 'succeeded', reply: 'ok', at: Date.now(), transcript: [{ role: 'user', content: 'hi', createdAt: 1, runId: r.id }, { role: 'assistant', content: 'ok', createdAt: 2, runId: r.id }], summary: { session: 'main', text: `done ${r.id}`, maxPending: 20 } })));
    completeMs += cpuNow() - a;
    n += runs.length;
  }
  console.log(one ? 'one session' : 'one each', { n, insertUs: ((t1 - t0) * 1000 / N).toFixed(1), claimUsPerRun: (claimMs * 1000 / n).toFixed(1), completeUsPerRun: (completeMs * 1000 / n).toFixed(1) });
  await store.close();
}
