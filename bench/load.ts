import autocannon, { type AutocannonRequest, type Result } from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** the body of the n-th request (n counts from 0 across all connections) */
  body: (n: number) => string;
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

/** Drives one endpoint with autocannon; each request gets its own body from `body(n)`. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const request: AutocannonRequest = {
    method: options.method ?? 'POST',
    path: options.path,
    headers: options.headers,
    setupRequest: (req) => ({ ...req, body: options.body(n++) }),
  };
  return new Promise((resolve, reject) => {
    autocannon(
      { url: options.url, connections: options.connections, duration: options.durationSeconds, requests: [request] },
      (error: Error | null, result: Result) => {
        if (error) return reject(error);
        resolve({
          requestsPerSecond: result.requests.average,
          latencyP50Ms: result.latency.p50,
          latencyP99Ms: result.latency.p99,
          total: result['2xx'] + result.non2xx,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      },
    );
  });
}
