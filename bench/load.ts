import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-worker.ts');

export interface LoadOptions {
  url: string;
  method?: string;
  path: string;
  /** every `{n}` in a value is replaced by the request's n, as in `body` */
  headers: Record<string, string>;
  /** the body of the n-th request: every `{n}` is replaced by n (counting from 0 across all connections) */
  body?: string;
  /** each request's body signed with HMAC-SHA256: `header: <prefix><hex digest>` (a signed webhook, bench/signed-hook.ts) */
  signing?: { header: string; prefix: string; secret: string };
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * Drives one endpoint with autocannon in a separate process (bench/load-worker.ts), so the load
 * generator never shares an event loop with the benchmark's bookkeeping.
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const args = JSON.stringify({
    url: options.url,
    method: options.method ?? 'POST',
    path: options.path,
    headers: options.headers,
    bodyTemplate: options.body,
    signing: options.signing,
    connections: options.connections,
    durationSeconds: options.durationSeconds,
  });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', worker, args], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`load generator failed: ${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult);
    });
  });
}
