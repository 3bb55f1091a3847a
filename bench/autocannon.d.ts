// autocannon ships no types; only the part of its programmatic API the benchmarks use.
declare module 'autocannon' {
  import type { ClientRequest } from 'node:http';

  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** called before each request of a connection; returns the request to send */
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  }

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: AutocannonRequest[];
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p999?: number;
    total?: number;
  }

  interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  }

  type Instance = { stop(): void; on(event: 'response', listener: (client: ClientRequest, status: number) => void): void };

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  /** without a callback: a promise of the result (that is also the running instance) */
  function autocannon(options: Options): Promise<Result> & Instance;
  export default autocannon;
  export type { Options, Result, AutocannonRequest };
}
