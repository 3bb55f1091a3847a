import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNTING_ARGS, countingEnv, readCounts, type AsyncStepCounts } from './async-steps-counts.js';
import { startChildServer, type ChildServer } from './child-server.js';
import { compiledBaseline } from './compiled-baseline.js';
import { optionsFromEnv, type HooksBenchOptions } from './hooks.bench.js';
import { runLoad } from './load.js';
import { storageBytes, waitUntilIdle } from './process-stats.js';
import { GITHUB_PRESET, GITHUB_SIGNING, githubBaselineConfig, SIGNED_BODY, SIGNED_PATH, signedHeaders } from './signed-hook.js';
import { formatTable } from './table.js';

/**
 * What a request costs in steps, not time: the promises each server makes and the bytes it
 * allocates per request, herald against the same-records baseline (bench/baseline-server.ts),
 * each alone under the same load from another process. Counts do not scatter with the machine
 * as req/s does, so a change a few per cent of CPU wide shows here when a timed A/B cannot
 * resolve it. It also prints the bytes each server had written to storage per request (the WAL's
 * frames and the checkpoints' pages: what a commit costs grows with them). The counting slows
 * each server (an async hook on every promise, V8's allocation sampler): this bench prints no timing.
 *
 * `node --import tsx bench/async-steps.bench.ts`. Env: the webhook benchmark's that apply
 * (bench/hooks.bench.ts: BENCH_DURATION of counted load, BENCH_WARMUP, BENCH_CONNECTIONS,
 * BENCH_LOG_LEVEL, BENCH_HERALD_ROOT=<checkout>[,<checkout>] for a before/after in one run,
 * BENCH_ENDPOINTS=wake,agent-executed,github, all by default). BENCH_PROMISE_SITES=1 also prints where
 * each server makes its promises and which SQLite statements it runs, per request; BENCH_ALLOC_SITES=1
 * its 30 largest allocation sites instead of 6. ASYNC_STEPS_SURVIVORS=1 (read by the servers' preload) counts only what
 * outlived a scavenge, what promotion and full collections pay for, in "KB allocated" and its sites.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_PROMISE_SITES=1: also where each server makes its promises (one in 16 sampled) and its statements by SQL
const PROMISE_SITES = Boolean(process.env.BENCH_PROMISE_SITES);
// BENCH_ALLOC_SITES=1: the 30 largest allocation sites instead of 6; a larger number, that many
const allocSitesAsked = Number(process.env.BENCH_ALLOC_SITES || 0);
const ALLOC_SITES = !allocSitesAsked ? 6 : allocSitesAsked === 1 ? 30 : allocSitesAsked;
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';

interface Endpoint {
  name: string;
  heraldPath: string;
  baselinePath: string;
  body: string;
  /** a signed webhook (bench/signed-hook.ts): the sender's headers for one load run and the body's signing, no token */
  signed?: { headers: () => Record<string, string>; signing: typeof GITHUB_SIGNING };
}

// a different text per request: the main session skips an event equal to the one before it
const ENDPOINTS: Endpoint[] = [
  { name: 'wake', heraldPath: '/hooks/wake', baselinePath: '/hooks/wake', body: JSON.stringify({ text: 'event {n}: the nightly export finished' }) },
  {
    name: 'agent-executed',
    heraldPath: '/hooks/agent',
    baselinePath: '/hooks/agent-executed',
    body: JSON.stringify({ message: 'message {n}: summarise the open tickets', name: 'Bench', deliver: false }),
  },
  // the github preset's issues.opened, signed, its delivery id the idempotency key: a keyed run in one group commit (RunsRepo.insertKeyed)
  { name: 'github', heraldPath: SIGNED_PATH, baselinePath: SIGNED_PATH, body: SIGNED_BODY, signed: { headers: signedHeaders, signing: GITHUB_SIGNING } },
];

/** counts one server over one endpoint's load: started with the preload, warmed up, counted until idle again */
async function count(start: (out: string) => Promise<ChildServer>, urlPath: string, endpoint: Endpoint, dir: string, options: HooksBenchOptions): Promise<AsyncStepCounts & { requests: number; storageBytes: number }> {
  const out = path.join(dir, `counted-${Date.now()}.json`);
  const server = await start(out);
  try {
    const load = (seconds: number) =>
      runLoad({
        url: server.url,
        path: urlPath,
        // a signed endpoint's delivery ids are new per load run (a repeated one is answered from the first)
        headers: endpoint.signed ? endpoint.signed.headers() : { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' },
        body: endpoint.body,
        signing: endpoint.signed?.signing,
        connections: options.connections,
        durationSeconds: seconds,
      });
    await load(options.warmupSeconds);
    await waitUntilIdle(server.pid);
    process.kill(server.pid, 'SIGUSR2');
    const storedBefore = storageBytes(server.pid);
    const { total, non2xx } = await load(options.durationSeconds);
    if (non2xx) throw new Error(`${server.name}: ${non2xx} answers were not 2xx`);
    // the runs accepted during the load are executed after it too: counted until the server is idle
    await waitUntilIdle(server.pid);
    const stored = storageBytes(server.pid) - storedBefore;
    process.kill(server.pid, 'SIGUSR2');
    return { ...(await readCounts(out, server.name)), requests: total, storageBytes: stored };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-async-steps-'));
  const options = optionsFromEnv();
  const roots = options.heraldRoots.length ? options.heraldRoots : [ROOT];
  const wanted = options.endpoints ?? ENDPOINTS.map((e) => e.name);
  const baselineScript = await compiledBaseline();
  const rows: (string | number)[][] = [];
  const sites: string[] = [];
  try {
    const chosen = ENDPOINTS.filter((e) => wanted.includes(e.name));
    if (!chosen.length) throw new Error(`BENCH_ENDPOINTS names none of ${ENDPOINTS.map((e) => e.name).join(', ')}`);
    for (const endpoint of chosen) {
      const herald = (root: string) => async (out: string) => {
        const config = path.join(dir, `herald-${endpoint.name}-${path.basename(root)}`, 'herald.json');
        fs.mkdirSync(path.dirname(config), { recursive: true });
        fs.writeFileSync(config, JSON.stringify({ hooks: { enabled: true, token: HOOK_TOKEN, presets: [GITHUB_PRESET] }, heartbeat: { every: '0' }, storage: { sqlite: './data/herald.db' }, gateway: { port: 0 } }));
        return startChildServer({
          name: 'herald',
          args: [...COUNTING_ARGS, path.join(root, 'bin/herald.mjs'), 'serve', '--config', config],
          cwd: root,
          env: { HERALD_LOG_LEVEL: options.logLevel, ...countingEnv(out, PROMISE_SITES) },
        });
      };
      const baseline = (out: string) =>
        startChildServer({
          name: 'baseline same-records',
          args: [...COUNTING_ARGS, baselineScript],
          cwd: ROOT,
          env: { BASELINE_DB: path.join(dir, `baseline-${endpoint.name}`, 'baseline.db'), BASELINE_TOKEN: HOOK_TOKEN, BASELINE_GITHUB: JSON.stringify(githubBaselineConfig()), ...countingEnv(out, PROMISE_SITES) },
        });
      const servers: [string, (out: string) => Promise<ChildServer>, string][] = [
        ['baseline same-records', baseline, endpoint.baselinePath],
        ...roots.map((root): [string, (out: string) => Promise<ChildServer>, string] => [roots.length > 1 ? `herald ${path.basename(root)}` : 'herald', herald(root), endpoint.heraldPath]),
      ];
      for (const [name, start, urlPath] of servers) {
        process.stdout.write(`  ${endpoint.name} on ${name} ... `);
        const counted = await count(start, urlPath, endpoint, dir, options);
        console.log(`${counted.requests} requests`);
        rows.push([endpoint.name, name, counted.requests, (counted.promises / counted.requests).toFixed(1), (counted.statements / counted.requests).toFixed(2), (counted.requests / Math.max(counted.commits, 1)).toFixed(1), (counted.allocated / counted.requests / 1024).toFixed(1), (counted.storageBytes / counted.requests / 1024).toFixed(2)]);
        if (PROMISE_SITES)
          for (const [site, n] of [...counted.promiseTop, ...counted.statementTop]) console.log(`    ${(n / counted.requests).toFixed(2).padStart(6)}  ${site.replace(/\s+/g, ' ').slice(0, 160)}`);
        sites.push(`${endpoint.name} on ${name}: ${counted.top.slice(0, ALLOC_SITES).map(([site, bytes]) => `${site} ${(bytes / counted.requests / 1024).toFixed(1)} KB`).join(', ')}`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log();
  console.log(formatTable(['endpoint', 'server', 'requests', 'promises/request', 'statements/request', 'requests/commit', 'KB allocated/request', 'KB written/request'], rows));
  console.log();
  console.log('Where each allocates most, per request (V8 sampling every 4 KiB, freed objects included):');
  for (const line of sites) console.log(`- ${line}`);
  console.log();
  console.log('Notes: counted from the load\'s start until the server is idle again (the runs it accepted executed), the load from another process;');
  console.log('the baseline executes its runs on agent-executed and github as bench/hooks.bench.ts describes. The counting slows both servers: no timing here.');
}

await main();
