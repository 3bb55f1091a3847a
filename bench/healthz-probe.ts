/**
 * The load side of `ingest.bench.ts`, run in its own process so the uploader does not disturb
 * its timing: GET /healthz at a fixed rate (one request every `everyMs`, whether or not earlier
 * ones answered) until stdin closes, then the latency figures as one JSON line. Latency counts
 * from when a request was due, not when it went out, so a stalled server is not flattered by
 * the requests it kept from being sent (coordinated omission).
 */
import http from 'node:http';
import { percentile } from './table.js';

const [url, everyArg] = process.argv.slice(2);
if (!url) throw new Error('usage: healthz-probe.ts <url> [everyMs]');
const everyMs = Number(everyArg ?? 5);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const latencies: number[] = [];
const pending = new Set<Promise<void>>();
let failures = 0;

function probe(due: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(performance.now() - due);
        else failures++;
        resolve();
      });
    });
    req.on('error', () => {
      failures++;
      resolve();
    });
  });
}

const start = performance.now();
let sent = 0;
const timer = setInterval(() => {
  // catch up on every request that fell due while this process was busy
  while (start + sent * everyMs <= performance.now()) {
    const p = probe(start + sent * everyMs);
    sent++;
    pending.add(p);
    void p.then(() => pending.delete(p));
  }
}, 1);

process.stdin.resume();
process.stdin.on('end', async () => {
  clearInterval(timer);
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(latencies, p) * 10) / 10;
  process.stdout.write(`${JSON.stringify({ requests: latencies.length, failures, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) })}\n`);
  agent.destroy();
});
process.stdout.write('probing\n');
