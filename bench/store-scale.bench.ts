import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChildServer, type ChildServer } from './child-server.js';
import { cpuMillis } from './process-stats.js';
import { metricsLatency, seedMillion } from './scale.bench.js';
import { formatTable, ms } from './table.js';

/**
 * What the size of the store costs herald (SQLite): cold start to the first /healthz and the
 * CPU spent until then, and `GET /metrics`, on an empty store and on one of 1M finished events
 * + 1M finished runs. `HERALD_ROOT=/path/to/other/checkout` runs another herald (before/after);
 * `STORE_ROWS` sets the size.
 */

const ROOT = process.env.HERALD_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GATEWAY_TOKEN = 'bench-gateway-token-0123456789abcdef';

function writeConfig(dir: string): string {
  const configFile = path.join(dir, 'herald.json');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { host: '127.0.0.1', port: 0, auth: { token: GATEWAY_TOKEN } },
      hooks: { enabled: true, token: 'bench-hook-token-0123456789abcdef' },
      heartbeat: { every: '0' },
      // a channel, so the start-up looks for replies left behind (it skips that with none)
      channels: { webhook: { url: 'http://127.0.0.1:9/unused' } },
      storage: { sqlite: './data/herald.db' },
    }),
  );
  return configFile;
}

/** 30 sequential scrapes: latency, and herald's CPU per scrape (steadier than latency on a shared machine) */
async function scrapes(server: ChildServer) {
  const cpuBefore = cpuMillis(server.pid);
  const latency = await metricsLatency(server.url);
  return { ...latency, cpuMs: (cpuMillis(server.pid) - cpuBefore) / 30 };
}

async function start(configFile: string): Promise<{ server: ChildServer; coldStartMs: number; cpuMs: number }> {
  const started = performance.now();
  const server = await startChildServer({
    name: 'herald',
    args: [path.join(ROOT, 'bin/herald.mjs'), 'serve', '--config', configFile],
    cwd: ROOT,
    env: { HERALD_LOG_LEVEL: 'warn' },
    startTimeoutMs: 120_000,
  });
  const res = await fetch(`${server.url}/healthz`);
  await res.text();
  return { server, coldStartMs: performance.now() - started, cpuMs: cpuMillis(server.pid) };
}

export async function run(rows = Number(process.env.STORE_ROWS ?? 1_000_000)): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-store-scale-'));
  try {
    console.log(`store scale benchmark (${ROOT}): cold start and /metrics, empty and with ${rows} events + ${rows} runs`);
    const configFile = writeConfig(dir);
    const empty = await start(configFile);
    const emptyMetrics = await scrapes(empty.server);
    await empty.server.stop();
    seedMillion(path.join(dir, 'data', 'herald.db'), rows);
    // the first start after seeding sweeps what finished since the previous start (all of it);
    // the second is any later restart
    const large = [];
    for (let i = 0; i < 2; i++) {
      const started = await start(configFile);
      large.push({ ...started, metrics: await scrapes(started.server) });
      await started.server.stop();
    }
    console.log('');
    console.log(
      formatTable(
        ['store', 'cold start ms', 'CPU ms to /healthz', 'GET /metrics p50 ms', 'max ms', 'CPU ms per scrape'],
        [
          ['empty', ms(empty.coldStartMs), ms(empty.cpuMs), ms(emptyMetrics.p50Ms), ms(emptyMetrics.maxMs), emptyMetrics.cpuMs.toFixed(2)],
          ...large.map((l, i) => [`${rows} events + ${rows} runs, ${i === 0 ? 'first start' : 'restart'}`, ms(l.coldStartMs), ms(l.cpuMs), ms(l.metrics.p50Ms), ms(l.metrics.maxMs), l.metrics.cpuMs.toFixed(2)]),
        ],
      ),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// run directly: `node --import tsx bench/store-scale.bench.ts`
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
