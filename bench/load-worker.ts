/**
 * The load generator's own process (spawned by bench/load.ts): autocannon in the benchmark's
 * process would compete with the servers it measures for the same cores through the bench's
 * own event loop, and its timers would be delayed by the bench's bookkeeping. Reads its
 * options as one JSON line on argv[2], prints the result as one JSON line.
 * The body of request n is `bodyTemplate` with every `{n}` replaced by n, and so are the headers'
 * values; with `signing`, the body's HMAC-SHA256 goes into its header, as a sender signs.
 */
import { createHmac } from 'node:crypto';
import autocannon, { type AutocannonRequest, type Result } from 'autocannon';

interface WorkerOptions {
  url: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyTemplate?: string;
  signing?: { header: string; prefix: string; secret: string };
  connections: number;
  durationSeconds: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as WorkerOptions;
const template = options.bodyTemplate;
const parts = template === undefined ? undefined : template.split('{n}');
const templated = Object.entries(options.headers).filter(([, value]) => value.includes('{n}'));
const perRequest = parts !== undefined || templated.length > 0 || options.signing !== undefined;
let n = 0;

function setupRequest(req: AutocannonRequest): AutocannonRequest {
  const i = String(n++);
  const body = parts?.join(i);
  if (!templated.length && !options.signing) return { ...req, body };
  const headers = { ...options.headers };
  for (const [name, value] of templated) headers[name] = value.split('{n}').join(i);
  const { signing } = options;
  if (signing) headers[signing.header] = signing.prefix + createHmac('sha256', signing.secret).update(body ?? '').digest('hex');
  return { ...req, body, headers };
}

const request: AutocannonRequest = {
  method: options.method,
  path: options.path,
  headers: options.headers,
  ...(perRequest ? { setupRequest } : {}),
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
