/**
 * What a chat completion costs in steps, not time: herald's promises, SQLite statements and
 * commits, and bytes allocated per completion, plain and streamed, one connection by default (counted by
 * bench/async-steps-preload.mjs, as bench/async-steps.bench.ts counts the webhooks). Counts do not
 * scatter with a busy machine as CPU timings do; the counting slows herald, so no timing here.
 *
 * `node --import tsx bench/chat-steps.ts`. Env: BENCH_HERALD_ROOT=<checkout>[,<checkout>] (this one
 * by default), BENCH_DURATION (4 s counted), BENCH_PREWARM (6 s), BENCH_PROMISE_SITES=1 also
 * prints where the promises are made and the statements run, BENCH_ALLOC_SITES=<n> the n largest
 * allocation sites (6), BENCH_CHAT_CONNECTIONS the connections of the counted load (1),
 * BENCH_CHAT_STORE=0 counts completions sent with `store: false` (only the usage record kept).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNTING_ARGS, countingEnv, readCounts } from './async-steps-counts.js';
import { startChildServer } from './child-server.js';
import { prewarmChat } from './chat-prewarm.js';
import { runLoad } from './load.js';
import { API_KEY, chatBody, startHerald } from './platform.bench.js';
import { waitUntilIdle } from './process-stats.js';
import { formatTable } from './table.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const roots = (process.env.BENCH_HERALD_ROOT ?? ROOT).split(',').map((r) => path.resolve(r));
const seconds = Number(process.env.BENCH_DURATION ?? 4);
const prewarm = Number(process.env.BENCH_PREWARM ?? 6);
const sites = Boolean(process.env.BENCH_PROMISE_SITES);
const allocSites = Number(process.env.BENCH_ALLOC_SITES ?? 6);
const connections = Number(process.env.BENCH_CHAT_CONNECTIONS ?? 1);
const store = process.env.BENCH_CHAT_STORE !== '0';
const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-chat-steps-'));
const upstream = await startChildServer({ name: 'upstream', args: ['--import', 'tsx', path.join(ROOT, 'bench/chat-upstream.ts')], cwd: ROOT });
const rows: (string | number)[][] = [];
try {
  for (const root of roots) {
    for (const stream of [false, true]) {
      const out = path.join(dir, `counted-${rows.length}.json`);
      const herald = await startHerald(root, 'herald', upstream, COUNTING_ARGS, countingEnv(out, sites));
      try {
        await prewarmChat(herald, headers, { plain: chatBody(false), streamed: chatBody(true) }, 1, prewarm);
        process.kill(herald.pid, 'SIGUSR2');
        const { total, non2xx, errors } = await runLoad({ url: herald.url, path: '/v1/chat/completions', headers, body: chatBody(stream, store), connections, durationSeconds: seconds });
        if (non2xx || errors) throw new Error(`${non2xx} non-2xx answers and ${errors} errors`);
        await waitUntilIdle(herald.pid);
        process.kill(herald.pid, 'SIGUSR2');
        const c = await readCounts(out, 'herald');
        const kind = stream ? 'streamed' : 'plain';
        const name = roots.length > 1 ? path.basename(root) : 'herald';
        rows.push([kind, name, total, (c.promises / total).toFixed(1), (c.statements / total).toFixed(2), (total / Math.max(1, c.commits)).toFixed(1), (c.allocated / total / 1024).toFixed(1)]);
        console.log(`${kind} on ${name}: ${c.top.slice(0, allocSites).map(([site, bytes]) => `${site} ${(bytes / total / 1024).toFixed(1)} KB`).join(', ')}`);
        if (sites) for (const [site, n] of [...c.promiseTop, ...c.statementTop]) console.log(`    ${(n / total).toFixed(2).padStart(6)}  ${site.replace(/\s+/g, ' ').slice(0, 160)}`);
      } finally {
        await herald.stop();
      }
    }
  }
} finally {
  await upstream.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log();
console.log(formatTable(['kind', 'herald', 'completions', 'promises/completion', 'statements/completion', 'completions/commit', 'KB allocated/completion'], rows));
