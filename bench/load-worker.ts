/**
 * The load generator's own process (spawned by bench/load.ts): autocannon in the benchmark's
 * process would compete with the servers it measures for the same cores through the bench's
 * own event loop, and its timers would be delayed by the bench's bookkeeping. Reads its
 * options as one JSON line on argv[2], prints the result as one JSON line.
 * The body of request n is `bodyTemplate` with every `{n}` replaced by n.
 */
import autocannon, { type AutocannonRequest, type Result } from 'autocannon';

interface WorkerOptions {
  url: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyTemplate?: string;
  connections: number;
  durationSeconds: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
const template = options.bodyTemplate;
const parts = template === undefined ? undefined : template.split('{n}');
let n = 0;
const request: AutocannonRequest = {
  method: options.method,
  path: options.path,
  headers: options.headers,
  ...(parts ? { setupRequest: (req) => ({ ...req, body: parts.join(String(n++)) }) } : {}),
};
autocannon(
  { url: options.url, connections: options.connections, duration: options.durationSeconds, requests: [request] },
  (error: Error | null, result: Result) => {
    if (error) {
      process.stderr.write(`${error.stack}\n`);
      process.exit(1);
    }
    process.stdout.write(
      `${JSON.stringify({
        requestsPerSecond: result.requests.average,
        latencyP50Ms: result.latency.p50,
        latencyP99Ms: result.latency.p99,
        total: result['2xx'] + result.non2xx,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      })}\n`,
    );
  },
);
