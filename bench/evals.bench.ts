import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { startChildServer } from './child-server.js';
import { formatTable } from './table.js';

/**
 * How long `herald eval` takes to replay N recorded requests with the embedded model (docs/evals.md,
 * docs/performance.md "Evals"): N signed-in hook requests go through `herald serve` (a mapping that
 * retains its payloads, an agent run each on the embedded model), herald stops, then
 * `herald eval --limit N` replays them all through the same config, a process of its own, timed
 * from its spawn to its exit (start-up, the sandbox, the replays, the report).
 * `EVAL_REQUESTS=1000` sets N (default 1000); `EVAL_ROUNDS` the evals timed over the same recording (default 3).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';
const HOOK_TOKEN = 'bench-hook-token-0123456789abcdef';
const REQUESTS = Number(process.env.EVAL_REQUESTS ?? 1000);
const ROUNDS = Number(process.env.EVAL_ROUNDS ?? 3);

function writeConfig(dir: string): string {
  const file = path.join(dir, 'herald.json');
  fs.writeFileSync(
    file,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: {
        enabled: true,
        token: HOOK_TOKEN,
        mappings: [{ id: 'orders', match: { path: 'orders' }, action: 'agent', messageTemplate: 'Order {{ id }} was returned: {{ reason }}', deliver: false, retainPayloads: true }],
      },
      heartbeat: { every: '0' },
      storage: { sqlite: './data/herald.db' },
    }),
  );
  return file;
}

const unfinished = (db: string) => {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (conn.prepare("SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'running')").get() as { n: number }).n;
  } finally {
    conn.close();
  }
};

/** N requests through `herald serve`, 16 at a time, then every run they made finished */
async function record(file: string): Promise<void> {
  const herald = await startChildServer({ name: 'herald', args: [path.join(ROOT, 'bin/herald.mjs'), 'serve', '--config', file], cwd: ROOT, env: { HERALD_LOG_LEVEL: 'warn' }, startTimeoutMs: 120_000 });
  try {
    let next = 0;
    const send = async () => {
      while (next < REQUESTS) {
        const n = next++;
        const res = await fetch(`${herald.url}/hooks/orders`, { method: 'POST', headers: { authorization: `Bearer ${HOOK_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: n, reason: `reason ${n % 7}` }) });
        if (res.status !== 202) throw new Error(`request ${n}: ${res.status} ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, send));
    const db = path.join(path.dirname(file), 'data', 'herald.db');
    while (unfinished(db) > 0) await new Promise((r) => setTimeout(r, 200));
  } finally {
    await herald.stop();
  }
}

/** `herald eval --limit N --json` timed from spawn to exit, and its summary */
function evaluate(file: string): Promise<{ ms: number; summary: Record<string, unknown> }> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/herald.mjs'), 'eval', '--config', file, '--limit', String(REQUESTS), '--no-fixtures', '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (c) => (out += String(c)));
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) return reject(new Error(`herald eval exited ${code}`));
      resolve({ ms, summary: (JSON.parse(out) as { summary: Record<string, unknown> }).summary });
    }),
  );
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-evals-bench-'));
try {
  console.log(`evals benchmark: ${REQUESTS} recorded requests replayed with the embedded model; node ${process.version}, ${os.cpus().length} CPUs (load average ${os.loadavg()[0]!.toFixed(1)})`);
  const file = writeConfig(dir);
  await record(file);
  const rows: string[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const { ms, summary } = await evaluate(file);
    rows.push([String(round), String(summary.requests), String(summary.unchanged), (ms / 1000).toFixed(1), (ms / Number(summary.requests)).toFixed(2)]);
  }
  console.log(formatTable(['eval', 'requests', 'unchanged', 'wall s (spawn to exit)', 'ms per request'], rows));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
